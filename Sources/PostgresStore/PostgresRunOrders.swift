import CatalogStore
import NIOCore

/// The orders of a word's or a typed prefix's runs as the server sends them (`PostgresListing.leadPage`): for each
/// rank, its runs' `bigint[]`s one after the other (`array_send`), read into one list of orders a rank, for
/// `RankedMatches`. Streaming a row for each run and decoding its orders as `[Int64]` took 3-5 ms for 52,855 orders;
/// reading them here well under one.
enum PostgresRunOrders {
    /// The orders of each rank's runs, `runs` holding each rank's arrays; a rank no run has is empty.
    static func byRank(_ runs: [(rank: Int, orders: ByteBuffer)]) throws -> [[Int64]] {
        var orders: [[Int64]] = []
        for run in runs {
            guard (0..<256).contains(run.rank) else {
                throw UnreadableStoredValue(column: "product_word_runs.rank", value: "\(run.rank)")
            }
            if orders.count <= run.rank { orders.append(contentsOf: repeatElement([], count: run.rank + 1 - orders.count)) }
            var arrays = run.orders
            // At most one order per 12 bytes (its length and its value), reserved once: reserving each array's count
            // as it came grew the list by exactly that much, a copy of all the orders before it for every array.
            orders[run.rank].reserveCapacity(orders[run.rank].count + arrays.readableBytes / 12)
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
                }
            }
        }
        return orders
    }
}
