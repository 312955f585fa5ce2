import CatalogStore
import NIOCore

/// The matches of a typed prefix, merged from the runs of every word it starts (`PostgresListing.prefixPage`): a row
/// holding several of the words has an entry in each word's runs, and ranks by the best of them. Each rank's rows are
/// set in a bitset over the orders the runs span, and a row counts in the first rank that has it: the count and the
/// matches in the walk's order come out at once, where any page is found by its cursor: about 1 ms for 52,855
/// entries, where sorting them took 3.
struct PrefixMatches: Sendable {
    /// A page of the matches in the walk's order, one more than the page's size when there are more, and whether a
    /// match lies behind the cursor.
    struct Page: Sendable {
        var matches: [(rank: Int, order: Int64)]
        var hasRowsBehind: Bool
    }

    /// The widest span of orders merged: 2 MB of bitset for each rank. Past it, the prefix is walked
    /// (`prefixPage` answers `.more`); orders span about as many rows as were ever stored.
    static let widestSpan: Int64 = 1 << 24

    /// Each matching row's position in the walk (`RankedWalk.position`), by its best rank, ascending.
    private let positions: [Int64]

    /// The matches of the runs `runs`: for each rank, its runs' orders as PostgreSQL sends `bigint[]`s, one after the
    /// other (`array_send`). Streaming a row for each run and decoding its orders as `[Int64]` took 3-5 ms for 52,855
    /// orders; reading them here well under one. Nil when the orders span more than `widestSpan`.
    init?(_ runs: [(rank: Int, orders: ByteBuffer)]) throws {
        var orders: [[Int64]] = []
        var (lowest, highest) = (Int64.max, Int64.min)
        for run in runs {
            guard (0..<256).contains(run.rank) else {
                throw UnreadableStoredValue(column: "product_word_runs.rank", value: "\(run.rank)")
            }
            if orders.count <= run.rank { orders.append(contentsOf: repeatElement([], count: run.rank + 1 - orders.count)) }
            var arrays = run.orders
            while arrays.readableBytes > 0 {
                // Each array's header: dimensions, whether it has nulls, the elements' type (bigint is 20), then the
                // length and lower bound of its one dimension; then each element's length and value.
                guard let (dimensions, _, type) = arrays.readMultipleIntegers(as: (Int32, Int32, UInt32).self), type == 20,
                    let count = dimensions == 0 ? 0 : arrays.readMultipleIntegers(as: (Int32, Int32).self).map({ Int($0.0) }),
                    (0...1).contains(dimensions), count >= 0
                else {
                    throw UnreadableStoredValue(column: "product_word_runs.orders", value: "a run that is no list of bigints")
                }
                for _ in 0..<count {
                    guard let (length, order) = arrays.readMultipleIntegers(as: (Int32, Int64).self), length == 8, order >= 0 else {
                        throw UnreadableStoredValue(column: "product_word_runs.orders", value: "an order that is no bigint")
                    }
                    orders[run.rank].append(order)
                    (lowest, highest) = (min(lowest, order), max(highest, order))
                }
            }
        }
        guard lowest <= highest else {
            positions = []
            return
        }
        guard highest - lowest < Self.widestSpan else { return nil }
        let words = Int((highest - lowest) >> 6) + 1
        var seen = [UInt64](repeating: 0, count: words)
        var positions: [Int64] = []
        for (rank, held) in orders.enumerated() where !held.isEmpty {
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
                    positions.append(RankedWalk.position(rank: rank, order: lowest + Int64(word << 6 | bit)))
                }
            }
        }
        self.positions = positions
    }

    /// How many rows match: their distinct orders.
    var count: Int { positions.count }

    /// The page of `walk`: from its cursor, or the start, in the direction it reads, `pageSize + 1` matches at most.
    func page(_ walk: RankedWalk) -> Page {
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
