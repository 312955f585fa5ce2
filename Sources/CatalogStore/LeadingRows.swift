/// The rows a ranked page of a corrected search shows before its other matches: the best match of each word its
/// mistyped words may stand for (`SearchPlanner.leads(of:)`), found by the engine among the rows the filters select.
///
/// They make a rank of their own, the walk's first (`RankedWalk`): within it, rows in the order they were first stored;
/// after it, the search's ranks as ever, each without the leading rows, so that a cursor visits each match once. The
/// count is the search's, which holds them.
public struct LeadingRows: Sendable, Equatable {
    /// The leading rows' numbers (SQLite's rowid, PostgreSQL's `row_order`), ascending, each once.
    public let orders: [Int64]

    public static let none = LeadingRows([])

    public init(_ orders: some Sequence<Int64>) {
        self.orders = Array(Set(orders)).sorted()
    }

    public var isEmpty: Bool { orders.isEmpty }

    /// The ranks of a walk over the leading rows and `fieldRanks` ranks of a search's fields: the leading rows' own
    /// first, when there are any.
    public func walkRanks(fieldRanks: Int) -> Int { fieldRanks + (isEmpty ? 0 : 1) }

    /// The rank of the search's fields that the walk's `rank` reads; nil for the leading rows' own.
    public func fieldRank(_ rank: Int) -> Int? {
        guard !isEmpty else { return rank }
        return rank == 0 ? nil : rank - 1
    }
}
