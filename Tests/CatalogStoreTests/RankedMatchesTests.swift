import CatalogFixtures
import CatalogStore
import PostgresNIO
import Testing

@testable import PostgresStore

/// A typed prefix's runs merged in memory (`RankedMatches`, from `PostgresRunOrders`) give the pages a brute force over
/// the same entries gives: each row once, at its best rank, in the walk's order either way, with the count of distinct
/// rows; and a lead's matches tested by the other words give the rows they all hold, at the worst of their ranks.
struct RankedMatchesTests {
    /// Runs of three words of a prefix over 300 rows in three ranks, some rows held by two or three of the words.
    static let runs: [(rank: Int, orders: [Int64])] = {
        var generator = SplitMix64(seed: 7)
        return (0..<12).map { run in
            let orders = Set((0..<40).map { _ in Int64(generator.next() % 300) + 1 })
            return (rank: run % 3, orders: orders.sorted())
        }
    }()

    /// The matches of runs as the server sends them (`PostgresRunOrders`).
    static func matches(_ runs: [(rank: Int, orders: ByteBuffer)]) throws -> RankedMatches? {
        RankedMatches(ordersByRank: try PostgresRunOrders.byRank(runs))
    }

    /// Each row's position (`RankedWalk.position`) at its best rank, ascending.
    static var reference: [Int64] {
        var best: [Int64: Int] = [:]
        for run in runs {
            for order in run.orders { best[order] = min(best[order] ?? run.rank, run.rank) }
        }
        return best.map { RankedWalk.position(rank: $0.value, order: $0.key) }.sorted()
    }

    @Test func theCountIsTheRowsAndPagesWalkBothWaysAsTheReference() throws {
        // Each rank's runs as the server sends them: each run's `bigint[]`, one after the other.
        var sent: [Int: ByteBuffer] = [:]
        for run in Self.runs { run.orders.encode(into: &sent[run.rank, default: ByteBuffer()], context: .default) }
        let matches = try #require(try Self.matches(sent.map { ($0.key, $0.value) }))
        let reference = Self.reference
        #expect(matches.count == reference.count)
        #expect(matches.count < Self.runs.reduce(0) { $0 + $1.orders.count }, "no row was held by two words")
        let ranks = SearchFields.products.ranks.count
        for pageSize in [1, 7, 50] {
            // Forwards from the start, each page from the last one's cursor.
            var walked: [Int64] = []
            var cursor: String?
            var pages = 0
            repeat {
                let walk = try RankedWalk(PageRequest(ordering: "relevance", pageSize: pageSize, cursor: cursor), ordering: .products, ranks: ranks)
                let page = matches.page(walk)
                #expect(page.hasRowsBehind == (cursor != nil))
                let shown = page.matches.prefix(pageSize).map { RankedWalk.position(rank: $0.rank, order: $0.order) }
                walked += shown
                cursor =
                    page.matches.count > pageSize
                    ? walk.cursors(page.matches.map { .init(rank: $0.rank, order: $0.order, key: .text("K")) }, hasRowsBehind: false).next
                    : nil
                pages += 1
            } while cursor != nil && pages < 1_000
            #expect(walked == reference, "forwards in pages of \(pageSize)")
            // Backwards from a cursor in the middle: the rows before it, nearest first.
            let middle = reference[reference.count / 2]
            let back = try RankedWalk(
                PageRequest(
                    ordering: "relevance", pageSize: pageSize,
                    cursor: ListCursor(ordering: "relevance", direction: .previous, sortValue: .integer(middle), key: .text("K")).encoded()),
                ordering: .products, ranks: ranks)
            let page = matches.page(back)
            let before = Array(reference[..<(reference.count / 2)].reversed().prefix(pageSize + 1))
            #expect(page.matches.map { RankedWalk.position(rank: $0.rank, order: $0.order) } == before, "back in pages of \(pageSize)")
            #expect(page.hasRowsBehind)
        }
    }

    /// Orders that are not a list of bigints (text, integers of another size) are an error that names the table, not
    /// matches made up from their bytes.
    @Test func runsThatAreNoListsOfBigintsAreAnError() {
        var integers = ByteBuffer()
        [Int32(1), 2, 3].encode(into: &integers, context: .default)
        for orders in [ByteBuffer(string: "{1,2}"), integers] {
            #expect(throws: UnreadableStoredValue.self) { try Self.matches([(0, orders)]) }
        }
    }

    /// Orders spread wider than `widestSpan` are not merged (the prefix is walked): no bitset of gigabytes.
    @Test func ordersSpreadTooWideAreNotMerged() throws {
        var orders = ByteBuffer()
        [Int64(1), RankedMatches.widestSpan + 1].encode(into: &orders, context: .default)
        #expect(try Self.matches([(0, orders)]) == nil)
        var near = ByteBuffer()
        [Int64(1), RankedMatches.widestSpan].encode(into: &near, context: .default)
        #expect(try Self.matches([(1, near)])?.count == 2)
    }

    /// A page in the other order (`-relevance`) from the start is the last matches, and a cursor between two matches
    /// (a row deleted since) pages from where it stands, either way; runs without orders add nothing.
    @Test func pagesInTheOtherOrderAndFromACursorBetweenMatches() throws {
        var sent: [Int: ByteBuffer] = [:]
        for run in Self.runs + [(rank: 1, orders: [])] {
            run.orders.encode(into: &sent[run.rank, default: ByteBuffer()], context: .default)
        }
        let matches = try #require(try Self.matches(sent.map { ($0.key, $0.value) }))
        let reference = Self.reference
        let ranks = SearchFields.products.ranks.count
        func positions(_ request: PageRequest) throws -> (shown: [Int64], behind: Bool) {
            let page = matches.page(try RankedWalk(request, ordering: .products, ranks: ranks))
            return (page.matches.map { RankedWalk.position(rank: $0.rank, order: $0.order) }, page.hasRowsBehind)
        }
        let last = try positions(PageRequest(ordering: "-relevance", pageSize: 5))
        #expect(last.shown == Array(reference.suffix(6).reversed()))
        #expect(!last.behind)
        // A position no match has: one past the tenth match's, before the eleventh's.
        let between = reference[10] + 1
        #expect(!reference.contains(between))
        for direction in [ListCursor.Direction.next, .previous] {
            let cursor = ListCursor(ordering: "relevance", direction: direction, sortValue: .integer(between), key: .text("K")).encoded()
            let page = try positions(PageRequest(ordering: "relevance", pageSize: 3, cursor: cursor))
            let expected = direction == .next ? Array(reference[11..<15]) : Array(reference[7...10].reversed())
            #expect(page.shown == expected, "\(direction)")
            #expect(page.behind, "\(direction)")
        }
    }

    /// A lead's matches tested by other words: a row they do not all hold is dropped, one they hold in a worse rank
    /// than the lead's goes to that rank, and one the sets cannot tell of waits for the engine (`decide`), which may
    /// rank it or leave it out.
    @Test func otherWordsDropRowsMoveThemToWorseRanksOrLeaveThemToTheEngine() throws {
        func others(_ order: Int64) -> RankedMatches.OtherWords {
            switch order % 7 {
            case 0: .absent
            case 1: .undecided
            default: .rank(Int(order % 3))
            }
        }
        var best: [Int64: Int] = [:]
        for run in Self.runs {
            for order in run.orders { best[order] = min(best[order] ?? run.rank, run.rank) }
        }
        let engine = Dictionary(uniqueKeysWithValues: best.keys.filter { $0 % 7 == 1 && $0 % 2 == 0 }.map { ($0, Int($0 % 3)) })
        var reference: [Int64] = []
        for (order, rank) in best {
            switch others(order) {
            case .rank(let other): reference.append(RankedWalk.position(rank: max(rank, other), order: order))
            case .absent: continue
            case .undecided: if let ranked = engine[order] { reference.append(RankedWalk.position(rank: ranked, order: order)) }
            }
        }
        reference.sort()
        var byRank = [[Int64]](repeating: [], count: 3)
        for run in Self.runs { byRank[run.rank] += run.orders }
        var matches = try #require(RankedMatches(ordersByRank: byRank, others: others))
        #expect(Set(matches.undecided) == Set(best.keys.filter { $0 % 7 == 1 }))
        matches.decide(engine)
        #expect(matches.undecided.isEmpty)
        #expect(matches.count == reference.count)
        let walk = try RankedWalk(PageRequest(ordering: "relevance", pageSize: reference.count), ordering: .products, ranks: 3)
        #expect(matches.page(walk).matches.map { RankedWalk.position(rank: $0.rank, order: $0.order) } == reference)
    }
}
