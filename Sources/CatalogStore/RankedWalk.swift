/// How a page of a search's matches in `relevance` order is read, on every engine: rank by rank, best first, and
/// within a rank in the order the rows were first stored (SQLite's rowid, PostgreSQL's `row_order`), which is the
/// order the engines' full-text indexes hold their matches in. A page then reads as many matches as it shows, from
/// the index, whatever the number of matches: ordering ties by key instead would sort every match of a word most
/// rows hold, a second on a million rows.
///
/// A position is `rank << orderBits | order`, so that a cursor carries it as one integer: an order (a row number
/// both engines give from 1 upwards) stays below 2⁴⁸.
public struct RankedWalk: Sendable {
    public static let orderBits = 48
    private static let orderMask: Int64 = (1 << Int64(orderBits)) - 1

    /// One stretch of the walk: the matches of `rank` beyond `order` (exclusive; from the start of the rank when
    /// nil), in `ascending` order of their row numbers.
    public struct Step: Sendable, Equatable {
        public var rank: Int
        public var beyond: Int64?
        public var ascending: Bool

        public init(rank: Int, beyond: Int64?, ascending: Bool) {
            self.rank = rank
            self.beyond = beyond
            self.ascending = ascending
        }
    }

    /// Where a match stands: its rank, its row number and its key.
    public struct Position: Sendable {
        public var rank: Int
        public var order: Int64
        public var key: ListCursor.Value

        public init(rank: Int, order: Int64, key: ListCursor.Value) {
            self.rank = rank
            self.order = order
            self.key = key
        }
    }

    public let ranks: Int
    public let pageSize: Int
    private let resolved: ListOrdering.Resolved
    private let forward: Bool
    private let ascendingInQuery: Bool
    private let start: (rank: Int, order: Int64)?

    /// The walk of `request`, resolved to `relevance` (`PageRequest.ranked(by:)`), over `ranks` ranks.
    /// Throws as reading a page of `request` would, without reading it: an ordering the list has not is
    /// `InvalidQuery`, a cursor not issued here `UnknownCursor` (for a page known to be empty before it is read).
    public static func check(_ request: PageRequest, ordering: ListOrdering, ranks: Int) throws {
        if try ordering.resolve(request).field == ListOrdering.relevance { _ = try RankedWalk(request, ordering: ordering, ranks: ranks) }
    }

    public init(_ request: PageRequest, ordering: ListOrdering, ranks: Int) throws {
        resolved = try ordering.resolve(request)
        self.ranks = ranks
        pageSize = request.pageSize
        forward = resolved.cursor?.direction != .previous
        ascendingInQuery = forward != resolved.descending
        if let cursor = resolved.cursor {
            // A position this service issued has a rank the search has: anything else is a cursor made by hand.
            guard case .integer(let position) = cursor.sortValue, position >= 0, position >> Int64(Self.orderBits) < ranks else {
                throw UnknownCursor.notIssuedHere
            }
            start = (Int(position >> Int64(Self.orderBits)), position & Self.orderMask)
        } else {
            start = nil
        }
    }

    /// The stretches that hold the page, in the order it is read; the reader stops once it has `pageSize + 1`
    /// matches (the one more tells that there is a next page).
    public var steps: [Step] { steps(from: start, ascending: ascendingInQuery) }

    /// The stretches behind the cursor, nearest first, the cursor's own row included: a page read from a cursor has
    /// a page on the cursor's other side when one of them holds a match.
    public var stepsBehind: [Step] {
        guard let start else { return [] }
        // `beyond` is exclusive: one step past the cursor's own row includes it.
        return steps(from: (start.rank, start.order + (ascendingInQuery ? 1 : -1)), ascending: !ascendingInQuery)
    }

    private func steps(from start: (rank: Int, order: Int64)?, ascending: Bool) -> [Step] {
        let first = start?.rank ?? (ascending ? 0 : ranks - 1)
        let ranksInOrder = ascending ? Array(max(first, 0)..<ranks) : Array((0...min(first, ranks - 1)).reversed())
        return ranksInOrder.map { rank in Step(rank: rank, beyond: rank == start?.rank ? start?.order : nil, ascending: ascending) }
    }

    /// Whether the steps read the page from its end: its rows are then reversed once read.
    public var readsBackwards: Bool { !forward }

    /// Whether the page's matches are read in ascending positions.
    public var readsAscending: Bool { ascendingInQuery }

    /// The cursor's position as one integer, as a cursor carries it; nil for a first page. A statement that reads
    /// every match at once compares positions with it: the page lies beyond it in the reading order (exclusive),
    /// and the rows behind the cursor are the others, the cursor's own row included.
    public var cursorPosition: Int64? { start.map { Self.position(rank: $0.rank, order: $0.order) } }

    /// The cursor's rank and row number; nil for a first page.
    public var cursorStart: (rank: Int, order: Int64)? { start }

    /// `rank << orderBits | order`.
    public static func position(rank: Int, order: Int64) -> Int64 { Int64(rank) << Int64(orderBits) | order }

    /// The cursors of the pages on either side of the page whose matches stand at `positions` (as read along
    /// `steps`, at most `pageSize + 1`), given whether `stepsBehind` held a match.
    public func cursors(_ positions: [Position], hasRowsBehind: Bool) -> (next: String?, previous: String?) {
        let hasMoreInQueryDirection = positions.count > pageSize
        var shown = Array(positions.prefix(pageSize))
        if !forward { shown.reverse() }
        func cursor(_ position: Position?, _ direction: ListCursor.Direction) -> String? {
            guard let position else { return nil }
            let value = Self.position(rank: position.rank, order: position.order)
            return ListCursor(ordering: resolved.ordering, direction: direction, sortValue: .integer(value), key: position.key).encoded()
        }
        let hasNext = forward ? hasMoreInQueryDirection : hasRowsBehind
        let hasPrevious = forward ? hasRowsBehind : hasMoreInQueryDirection
        return (hasNext ? cursor(shown.last, .next) : nil, hasPrevious ? cursor(shown.first, .previous) : nil)
    }
}
