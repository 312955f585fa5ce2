/// Every match of a search read at once from its lead (`SearchRead.wordEntries`), in the walk's order: the rows the
/// lead's entries hold in each rank, a row held in several ranking by the first, then ranked by the worse of that and
/// the rank the search's other words hold it in (`OtherWords`), and dropped where they do not all hold it. Each rank's
/// rows are set in a bitset over the orders they span, so that the rows come out by rank and order at once, and the
/// count and any page from its cursor with them: about 1 ms for 52,855 entries, where sorting them took 3.
public struct RankedMatches: Sendable {
    /// How a row among the lead's matches holds the search's other words, each a word with a set.
    public enum OtherWords: Sendable, Equatable {
        /// They all hold it, the worst of them first in this rank.
        case rank(Int)
        /// One of them does not hold it.
        case absent
        /// The sets cannot tell: a change since them touched the row. The engine tells its rank (`decide`).
        case undecided
    }

    /// A page of the matches in the walk's order, one more than the page's size when there are more, and whether a
    /// match lies behind the cursor.
    public struct Page: Sendable {
        public var matches: [(rank: Int, order: Int64)]
        public var hasRowsBehind: Bool
    }

    /// The widest span of orders merged: 2 MB of bitset for each rank. Past it, the search is read otherwise (`init`
    /// fails); orders span about as many rows as were ever stored.
    public static let widestSpan: Int64 = 1 << 24

    /// Each matching row's position in the walk (`RankedWalk.position`), ascending.
    private var positions: [Int64]
    /// The rows the other words' sets cannot tell of (`OtherWords.undecided`), by their order.
    public private(set) var undecided: [Int64] = []

    /// The matches of the rows `ordersByRank[r]` holds in rank r, each held by the other words as `others` tells of its
    /// order. Nil when the orders span more than `widestSpan`.
    public init?(ordersByRank: [[Int64]], others: (Int64) -> OtherWords = { _ in .rank(0) }) {
        let orders = ordersByRank.joined()
        guard let lowest = orders.min(), let highest = orders.max() else {
            positions = []
            return
        }
        guard highest - lowest < Self.widestSpan else { return nil }
        let words = Int((highest - lowest) >> 6) + 1
        var seen = [UInt64](repeating: 0, count: words)
        // Each row's bit in the rank it ends in: the worse of its lead's and the other words' ranks, so that the rows
        // come out in the walk's order without a sort.
        var ranked: [[UInt64]] = []
        for (rank, held) in ordersByRank.enumerated() where !held.isEmpty {
            var bits = [UInt64](repeating: 0, count: words)
            for order in held {
                let offset = Int(order - lowest)
                bits[offset >> 6] |= 1 << UInt64(offset & 63)
            }
            for word in 0..<words where bits[word] != 0 {
                var fresh = bits[word] & ~seen[word]
                seen[word] |= bits[word]
                while fresh != 0 {
                    let bit = fresh.trailingZeroBitCount
                    fresh &= fresh - 1
                    let order = lowest + Int64(word << 6 | bit)
                    switch others(order) {
                    case .rank(let other):
                        let final = max(rank, other)
                        while ranked.count <= final { ranked.append([UInt64](repeating: 0, count: words)) }
                        ranked[final][word] |= 1 << UInt64(bit)
                    case .absent: continue
                    case .undecided: undecided.append(order)
                    }
                }
            }
        }
        var positions: [Int64] = []
        for (rank, bits) in ranked.enumerated() {
            for word in 0..<words where bits[word] != 0 {
                var remaining = bits[word]
                while remaining != 0 {
                    let bit = remaining.trailingZeroBitCount
                    remaining &= remaining - 1
                    positions.append(RankedWalk.position(rank: rank, order: lowest + Int64(word << 6 | bit)))
                }
            }
        }
        self.positions = positions
    }

    /// The matches at `positions` (`RankedWalk.position`), ascending, and the rows at `undecided` orders, which the
    /// engine ranks (`decide`).
    public init(positions: [Int64], undecided: [Int64]) {
        self.positions = positions
        self.undecided = undecided
    }

    /// Adds the undecided rows (`undecided`) that match the whole search, as the engine ranks them: `ranks` holds the
    /// rank of each that matches, by its order.
    public mutating func decide(_ ranks: [Int64: Int]) {
        let matching = undecided.compactMap { order in ranks[order].map { RankedWalk.position(rank: $0, order: order) } }
        undecided = []
        guard !matching.isEmpty else { return }
        positions = (positions + matching).sorted()
    }

    /// How many rows match: their distinct orders, once the undecided are decided.
    public var count: Int { positions.count }

    /// The page of `walk`: from its cursor, or the start, in the direction it reads, `pageSize + 1` matches at most.
    public func page(_ walk: RankedWalk) -> Page {
        let positions = positions
        let cursor = walk.cursorPosition
        // The first position past the cursor in ascending order, or the first at or past it.
        var low = 0
        var high = positions.count
        while low < high {
            let middle = (low + high) / 2
            if let cursor, walk.readsAscending ? positions[middle] <= cursor : positions[middle] < cursor {
                low = middle + 1
            } else {
                high = middle
            }
        }
        let taken: ArraySlice<Int64>
        let hasRowsBehind: Bool
        if walk.readsAscending {
            let start = cursor == nil ? 0 : low
            taken = positions[start..<min(start + walk.pageSize + 1, positions.count)]
            hasRowsBehind = start > 0
        } else {
            let end = cursor == nil ? positions.count : low
            taken = positions[max(0, end - walk.pageSize - 1)..<end]
            hasRowsBehind = end < positions.count
        }
        let ordered = walk.readsAscending ? Array(taken) : taken.reversed()
        let mask = Int64(1) << Int64(RankedWalk.orderBits) - 1
        return Page(
            matches: ordered.map { (rank: Int($0 >> Int64(RankedWalk.orderBits)), order: $0 & mask) }, hasRowsBehind: hasRowsBehind)
    }
}
