/// What a ranked walk's step selects after each row (`SQLiteSearchIndex.stepStatement`).
enum RankedColumn: Int32, TrailingColumn {
    /// The row's number, the order of the search index.
    case order = 2
    case key = 1
}
