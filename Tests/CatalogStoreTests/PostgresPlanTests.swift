import CatalogModel
import CatalogStore
import CatalogTestSupport
import Logging
import PostgresNIO
import Testing

@testable import PostgresStore

/// PostgreSQL plans from its statistics, which a test's few rows cannot make look like a million; so each statement
/// the store runs is planned with reading the whole table and sorting made a last resort (`enable_seqscan`,
/// `enable_sort` off): a plan that still scans `products` or sorts has no index that answers it. Which plan the
/// planner takes at a million products, `scripts/bench-search --postgres` measures.
@Suite("Every documented filter and ordering has an index that answers it, never a read of the whole table nor a sort (PostgreSQL)")
struct PostgresPlanTests {
    static let logger = Logger(label: "catalogd-tests")

    /// Whether a plan reads the whole products table or sorts rows.
    static func problem(_ plan: String) -> Bool {
        plan.contains("Seq Scan on products") || plan.contains("Sort")
    }

    /// Whether a plan reads the whole products table, or sorts anything but the matches of a search read into
    /// `matches` (at most `SearchPlanner.fewMatches` of them, `PostgresListing.matchesStatement`) or a whole word's
    /// entries of the runs that hold its page, read into `word_entries` (a page's runs, of at most 200 entries each).
    static func problemBeyondSortedMatches(_ plan: String) -> Bool {
        let nodes = plan.split(separator: "\n").filter { $0.contains("(cost=") }.map {
            $0.trimmingPrefix(while: { $0 == " " }).trimmingPrefix("->").trimmingPrefix(while: { $0 == " " })
        }
        let sortsOtherRows = zip(nodes, nodes.dropFirst()).contains { node, child in
            node.hasPrefix("Sort") && !child.hasPrefix("CTE Scan on matches") && !child.hasPrefix("CTE Scan on word_entries")
        }
        // The words' runs and their counts are read by a range of their key (an index's condition, or a bitmap of it),
        // never whole, and nothing read there is left to a filter (a cursor's position is part of the range).
        let lines = plan.split(separator: "\n").map { $0.trimmingPrefix(while: { $0 == " " }) }
        let readsAllWords = zip(lines, lines.dropFirst()).contains { line, next in
            line.contains(" on product_word") && !next.hasPrefix("Index Cond:") && !next.hasPrefix("Recheck Cond:")
        }
        var node = Substring()
        let filtersWords = lines.contains { line in
            if line.contains("(cost=") { node = line }
            return node.contains(" on product_word") && line.hasPrefix("Filter:")
        }
        return plan.contains("Seq Scan on products") || readsAllWords || filtersWords || sortsOtherRows
    }

    /// Plans each statement `statements` makes on a connection where scans and sorts are a last resort; returns the
    /// plans that `problem` finds fault with, named.
    static func failures(
        _ problem: @escaping @Sendable (String) -> Bool = problem, prepared: [String] = [],
        _ statements: @escaping @Sendable () throws -> [(name: String, sql: String, binds: PostgresBindings)]
    ) async throws -> [String]? {
        guard StoreBackend.available.contains(.postgres) else { return nil }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        let store = try #require(temporary.store as? PostgresCatalogStore)
        return try await store.transaction(.read) { connection in
            let settings = "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_sort', 'off', true)"
            try await connection.query(PostgresQuery(unsafeSQL: settings), logger: logger)
            for statement in prepared { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            var failures: [String] = []
            for statement in try statements() {
                var lines: [String] = []
                let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + statement.sql, binds: statement.binds)
                for try await line in try await connection.query(explain, logger: logger).decode(String.self) { lines.append(line) }
                let plan = lines.joined(separator: "\n")
                if problem(plan) { failures.append("\(statement.name):\n\(plan)") }
            }
            return failures
        }
    }

    /// The first page, a page from a cursor, and with them the count, of every documented filter in every ordering.
    @Test func pagesAndCountsOfEveryFilterAndOrderingReadAnIndex() async throws {
        let failures = try await Self.failures {
            var statements: [(String, String, PostgresBindings)] = []
            for (name, filter) in ListingPlanTests.filters {
                let query = filter.query
                for ordering in ListingPlanTests.orderings {
                    let field = ordering.hasPrefix("-") ? String(ordering.dropFirst()) : ordering
                    let sortValue: ListCursor.Value = ["price", "stock"].contains(field) ? .integer(5) : .text("m")
                    let cursor = ListCursor(ordering: ordering, direction: .next, sortValue: sortValue, key: .text("K")).encoded()
                    for request in [PageRequest(ordering: ordering), PageRequest(ordering: ordering, cursor: cursor)] {
                        var conditions = PostgresConditions(query.conditions)
                        let count = PostgresCatalogStore.productCount(query, &conditions)
                        let statement = try PostgresListing.products.pageStatement(request, conditions: conditions, count: count)
                        let label = "\(name), ordering=\(ordering)\(request.cursor == nil ? "" : ", from a cursor")"
                        statements.append((label, statement.page, statement.binds))
                        statements.append((label + ", empty page", statement.empty, statement.binds))
                    }
                }
            }
            return statements
        }
        guard let failures else { return }
        #expect(failures.isEmpty, "\(failures.count) plans read the table or sort:\n\(failures.joined(separator: "\n"))")
    }

    /// A search with each filter: each step of its ranked walk, and the count and a keyset page of its matches.
    @Test func searchesWithEveryFilterReadAnIndex() async throws {
        let failures = try await Self.failures {
            var statements: [(String, String, PostgresBindings)] = []
            let search = SearchQuery("desk lam")
            for (name, filter) in ListingPlanTests.filters {
                var searched = filter
                searched.search = "desk lam"
                let query = searched.query
                let filters = PostgresConditions(query.conditions)
                for step in [RankedWalk.Step(rank: 0, beyond: nil, ascending: true), RankedWalk.Step(rank: 2, beyond: 7, ascending: false)] {
                    let statement = PostgresListing.products.stepStatement(step, search: search, filters: filters, limit: 21)
                    statements.append(("a search and \(name), rank \(step.rank)", statement.sql, statement.binds))
                }
                for ordering in ["serial_code", "-price"] {
                    var conditions = PostgresListing.products.selecting(filters, search)
                    let count = PostgresCatalogStore.productCount(query, &conditions)
                    let statement = try PostgresListing.products.pageStatement(PageRequest(ordering: ordering), conditions: conditions, count: count)
                    statements.append(("a search and \(name), ordering=\(ordering), with its count", statement.page, statement.binds))
                }
            }
            return statements
        }
        guard let failures else { return }
        #expect(failures.isEmpty, "\(failures.count) plans read the table or sort:\n\(failures.joined(separator: "\n"))")
    }

    /// A ranked search with each filter read in one statement: its matches come from the search index, and only
    /// they are sorted, on a first page and from a cursor either way.
    @Test func searchesWithFewMatchesReadTheSearchIndexAndSortOnlyTheMatches() async throws {
        let failures = try await Self.failures(Self.problemBeyondSortedMatches) {
            var statements: [(String, String, PostgresBindings)] = []
            let search = SearchQuery("desk lam")
            let position = RankedWalk.position(rank: 1, order: 7)
            let cursors =
                [nil]
                + [ListCursor.Direction.next, .previous].map {
                    ListCursor(ordering: "relevance", direction: $0, sortValue: .integer(position), key: .text("K")).encoded()
                }
            for (name, filter) in ListingPlanTests.filters {
                var searched = filter
                searched.search = "desk lam"
                let filters = PostgresConditions(searched.query.conditions)
                for cursor in cursors {
                    let request = PageRequest(ordering: "relevance", cursor: cursor)
                    let walk = try RankedWalk(request, ordering: .products, ranks: SearchFields.products.ranks.count)
                    for placement in PostgresListing.FilterPlacement.allCases {
                        let statement = try #require(
                            PostgresListing.products.matchesStatement(walk, search: search, filters: filters, source: .rows(placement)))
                        let name = "a search and \(name)\(cursor == nil ? "" : ", from a cursor"), the filters \(placement)"
                        statements.append((name, statement.sql, statement.binds))
                    }
                }
            }
            for (text, cursor) in Self.wordPages {
                let statement = try Self.wordPage(text, cursor: cursor)
                statements.append(("the words of \"\(text)\"\(cursor == nil ? "" : ", from a cursor")", statement.sql, statement.binds))
            }
            return statements
        }
        guard let failures else { return }
        #expect(failures.isEmpty, "\(failures.count) plans read the table or sort more than the matches:\n\(failures.joined(separator: "\n"))")
    }

    /// A typed prefix's runs and their counts, and a lead word's, are read by a range of their key, and its page's rows
    /// by their row numbers (`PostgresListing.leadPage`): nothing read whole, nothing sorted; with the values, and
    /// prepared as the generic-plan pool's connections prepare them, planned once for any prefix or word
    /// (`PostgresPrefixRuns`, `PostgresLeadWordRuns`).
    @Test func aTypedPrefixReadsItsWordsRangeAndItsRowsByNumber() async throws {
        let listing = PostgresListing.products
        let runs = try #require(listing.leadRunsStatement(SearchQuery("lam"), limit: SearchPlanner.prefixEntries))
        #expect(runs.sql == PostgresPrefixRuns.sql)
        let wordRuns = try #require(listing.leadRunsStatement(SearchQuery("lamp "), limit: SearchPlanner.leadEntries))
        #expect(wordRuns.sql == PostgresLeadWordRuns.sql)
        let rowsSQL = listing.rowsByOrderSQL(try #require(listing.searchIndex))
        #expect(rowsSQL == PostgresRowsByOrder.sql)
        var orders = PostgresBindings()
        orders.append([Int64(3), 7, 9])
        let prepared = [
            "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)", "PREPARE prefix_runs AS \(PostgresPrefixRuns.sql)",
            "PREPARE prefix_rows AS \(PostgresRowsByOrder.sql)", "PREPARE lead_word_runs AS \(PostgresLeadWordRuns.sql)",
        ]
        let failures = try await Self.failures(Self.problemBeyondSortedMatches, prepared: prepared) { [orders] in
            [
                ("the runs of \"lam\"", runs.sql, runs.binds), ("the rows of a typed prefix's page", rowsSQL, orders),
                // A utility statement takes no parameters: the values are written out.
                ("the prepared runs", "EXECUTE prefix_runs('lam:*', \(SearchPlanner.prefixEntries))", PostgresBindings()),
                ("the prepared rows", "EXECUTE prefix_rows('{3,7,9}')", PostgresBindings()),
                ("the runs of a lead \"lamp\"", wordRuns.sql, wordRuns.binds),
                ("the prepared runs of a lead", "EXECUTE lead_word_runs('lamp', \(SearchPlanner.leadEntries))", PostgresBindings()),
            ]
        }
        guard let failures else { return }
        #expect(failures.isEmpty, "\(failures.count) plans read a table whole or sort:\n\(failures.joined(separator: "\n"))")
    }

    /// One whole word, without filters, read from the table of each product's words: a first page, and from a cursor
    /// either way. (A typed prefix's runs are read whole, by their key, and merged by the store: `RankedMatches`.)
    static let wordPages: [(text: String, cursor: String?)] = ["desk "].flatMap { text in
        [nil, RankedWalk.position(rank: wordPageCursor.rank, order: wordPageCursor.order)].flatMap { position -> [(String, String?)] in
            guard let position else { return [(text, nil)] }
            return [ListCursor.Direction.next, .previous].map {
                (text, ListCursor(ordering: "relevance", direction: $0, sortValue: .integer(position), key: .text("K")).encoded())
            }
        }
    }

    /// Where the cursors of `wordPages` stand.
    static let wordPageCursor: (rank: Int, order: Int64) = (1, 7)

    static func wordPage(_ text: String, cursor: String?) throws -> (sql: String, binds: PostgresBindings) {
        let walk = try RankedWalk(
            PageRequest(ordering: "relevance", cursor: cursor), ordering: .products, ranks: SearchFields.products.ranks.count)
        return try #require(
            PostgresListing.products.matchesStatement(walk, search: SearchQuery(text), filters: PostgresConditions(), source: .words))
    }

    /// The statements of word pages as the pool's connections prepare them, planned once for any word
    /// (`plan_cache_mode`): the first pages' (`PostgresFirstWordPage`), and those from a cursor had they been.
    @Test func preparedWordPagesReadTheWordsKeyForAnyWord() async throws {
        let pages = try Self.wordPages.map { try Self.wordPage($0.text, cursor: $0.cursor) }
        #expect(pages.filter { $0.sql == PostgresFirstWordPage.sql }.count == 1)
        let failures = try await Self.failures(Self.problemBeyondSortedMatches, prepared: try Self.preparing(Self.wordPages)) {
            try Self.executions(of: Self.wordPages)
        }
        guard let failures else { return }
        #expect(failures.isEmpty, "\(failures.count) plans read the table or sort more than the matches:\n\(failures.joined(separator: "\n"))")
    }

    /// A whole word's runs hold its matches, in the runs' key in the walk's order: its pages, first or from a cursor
    /// either way, read the runs that hold the page along the key, and sort only their entries, a page's size and two
    /// runs at most.
    @Test func aWholeWordsPagesReadItsRunsInOrderAndSortOnlyThePagesRuns() async throws {
        let pages = Self.wordPages
        #expect(pages.count == 3)
        let failures = try await Self.failures(
            { Self.problemBeyondSortedMatches($0) || $0.contains("CTE Scan on matches") },
            prepared: try Self.preparing(pages)
        ) {
            try Self.executions(of: pages)
        }
        guard let failures else { return }
        #expect(failures.isEmpty, "\(failures.count) plans read the table or sort:\n\(failures.joined(separator: "\n"))")
    }

    /// Statements that prepare `pages` (`wordPages`) as the generic-plan pool's connections do, planned once for any
    /// value. PostgreSQL infers the parameters' types here, where the store binds them: a whole word's cursor rank
    /// becomes a `smallint`, which the store binds as a `bigint` (`searchesWithFewMatchesReadTheSearchIndexAndSortOnlyTheMatches`
    /// plans the statements with the store's binds).
    static func preparing(_ pages: [(text: String, cursor: String?)]) throws -> [String] {
        ["SELECT set_config('plan_cache_mode', 'force_generic_plan', true)"]
            + (try pages.enumerated().map { "PREPARE word_page_\($0.offset) AS \(try wordPage($0.element.text, cursor: $0.element.cursor).sql)" })
    }

    /// Statements that execute what `preparing(pages)` prepared. A utility statement takes no parameters: the values
    /// are written out, in the order the statement has them (the word's text, the most runs read, the cursor's rank
    /// and row number, and the page size).
    static func executions(of pages: [(text: String, cursor: String?)]) throws -> [(name: String, sql: String, binds: PostgresBindings)] {
        try pages.enumerated().map { index, page in
            let (rank, order) = wordPageCursor
            // A whole word's matches are counted by their own table, not read; its page reads at most its size and
            // two runs.
            let values = ["'\(page.text)'", "22"] + (page.cursor == nil ? [] : ["\(rank)", "\(order)"]) + ["21"]
            let binds = try wordPage(page.text, cursor: page.cursor).binds
            #expect(values.count == binds.count)
            return ("the prepared word page \(index)", "EXECUTE word_page_\(index)(\(values.joined(separator: ", ")))", PostgresBindings())
        }
    }

    /// The plain first pages (`PostgresPlainPages`) as the generic-plan pool's connections prepare them, planned once
    /// for any page size: each reads its ordering's index.
    @Test func preparedPlainFirstPagesReadTheirOrderingsIndex() async throws {
        let statements = PostgresPlainPages.statements
        // Six orderings, a first page each way.
        #expect(statements.count == 12)
        #expect(Set(statements).count == statements.count)
        #expect(!statements.contains(""))
        let prepared =
            ["SELECT set_config('plan_cache_mode', 'force_generic_plan', true)"]
            + statements.enumerated().map { "PREPARE plain_page_\($0.offset) AS \($0.element)" }
        let failures = try await Self.failures(prepared: prepared) {
            // A utility statement takes no parameters: the page size is written out.
            statements.indices.map { ("the prepared plain page \($0)", "EXECUTE plain_page_\($0)(21)", PostgresBindings()) }
        }
        guard let failures else { return }
        #expect(failures.isEmpty, "\(failures.count) plans read the table or sort:\n\(failures.joined(separator: "\n"))")
    }

    /// A walk of the products in plain orderings, forwards and back, reads its first pages through the generic-plan
    /// pool's prepared statements, planned once, and its pages from a cursor unprepared.
    @Test func plainPagesAreReadPreparedWithOnePlan() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        let store = try #require(temporary.store as? PostgresCatalogStore)
        _ = try await store.upsertProducts((0..<30).map { try product(String(format: "P%02d", $0), stock: $0 % 4) }, author: "api")
        var walked: [String] = []
        for ordering in ["stock", "-stock"] {
            var request = PageRequest(ordering: ordering, pageSize: 4)
            for _ in 0..<3 {
                let page = try await store.products(ProductFilter(), page: request)
                walked += page.rows.map(\.product.serialCode)
                request.cursor = page.nextCursor
            }
            let back = try await store.products(ProductFilter(), page: PageRequest(ordering: ordering, pageSize: 4, cursor: request.cursor))
            request.cursor = back.previousCursor
            walked += try await store.products(ProductFilter(), page: request).rows.map(\.product.serialCode)
        }
        #expect(walked.count == 32)
        // Run one after another, the pages had one connection of the pool: the one asked here.
        let plans = try await store.genericPlans.client.withOpenConnection { connection in
            var plans: [String: Int] = [:]
            let query: PostgresQuery = "SELECT name, generic_plans FROM pg_prepared_statements WHERE name LIKE 'catalogd_plain_page_%'"
            for try await (name, generic) in try await connection.query(query, logger: Self.logger).decode((String, Int).self) {
                plans[name] = generic
            }
            return plans
        }
        // The first page each way; the pages from a cursor are not prepared.
        #expect(plans.count == 2, "\(plans)")
        #expect(plans.values.reduce(0, +) == 2)
    }

    /// The rule above finds what it is meant to: a sort of the table's rows, and a read of the whole table.
    @Test func aSortOfAnythingButTheMatchesIsAProblem() {
        let sortsMatches = """
            Limit  (cost=1.0..2.0 rows=21 width=8)
              ->  Sort  (cost=1.0..2.0 rows=21 width=8)
                    Sort Key: matches.match_rank
                    ->  CTE Scan on matches  (cost=0.0..1.0 rows=21 width=8)
            """
        #expect(!Self.problemBeyondSortedMatches(sortsMatches))
        #expect(Self.problemBeyondSortedMatches(sortsMatches.replacingOccurrences(of: "CTE Scan on matches", with: "Index Scan on products")))
        #expect(Self.problemBeyondSortedMatches(sortsMatches.replacingOccurrences(of: "CTE Scan on matches", with: "Seq Scan on products")))
        #expect(!Self.problemBeyondSortedMatches(sortsMatches.replacingOccurrences(of: "CTE Scan on matches", with: "CTE Scan on word_entries")))
        let runs = "Index Scan using product_word_runs_pkey on product_word_runs  (cost=0.56..4.58 rows=1321 width=10)\n"
        #expect(!Self.problemBeyondSortedMatches(runs + "  Index Cond: ((word >= 'lam'::text) AND (word < 'lam'::text))"))
        #expect(Self.problemBeyondSortedMatches(runs + "  Filter: (word ~~ 'lam%'::text)"))
        #expect(Self.problemBeyondSortedMatches(runs + "  Index Cond: (word = 'lamp'::text)\n  Filter: (ROW(rank, first_order) > ROW(1, 7))"))
        #expect(Self.problemBeyondSortedMatches("Seq Scan on product_word_runs  (cost=0.00..1.00 rows=1 width=10)\n  Filter: (word = 'lamp'::text)"))
    }
}
