/// What a keyset page's statement selects after each row (`SQLiteListing.pageStatement`).
enum KeysetColumn: Int32, TrailingColumn {
    case sortValue = 3
    case key = 2
    /// Whether rows are behind the cursor, on every row.
    case rowsBehind = 1
}
