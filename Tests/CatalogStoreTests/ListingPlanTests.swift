import CatalogModel
import CatalogStore
import GRDB
import Testing

@testable import SQLiteStore

@Suite("Every documented filter and ordering reads an index, never the whole table nor a sort of it (SQLite)")
struct ListingPlanTests {
    static let filters: [(String, ProductFilter)] = {
        let (low, high) = (try? Price(parsing: "10"), try? Price(parsing: "90"))
        return [
            ("no filter", ProductFilter()), ("category", ProductFilter(category: "c1")), ("brand", ProductFilter(brand: "Acme")),
            ("in_stock=true", ProductFilter(inStock: true)), ("in_stock=false", ProductFilter(inStock: false)),
            ("price range", ProductFilter(minimumPrice: low, maximumPrice: high)),
            ("brand and price range", ProductFilter(brand: "Acme", minimumPrice: low, maximumPrice: high)),
            ("category and brand", ProductFilter(category: "c1", brand: "Acme")),
            ("category and in_stock", ProductFilter(category: "c1", inStock: true)),
            ("category and price range", ProductFilter(category: "c1", minimumPrice: low, maximumPrice: high)),
        ]
    }()
    static let orderings = ["serial_code", "-serial_code", "name", "price", "-price", "category", "stock", "-stock", "updated_at", "-updated_at"]

    /// Whether a plan reads the whole table (a `SCAN` without an index) or sorts rows itself.
    static func problem(_ plan: String) -> Bool {
        plan.split(separator: "; ").contains { $0.hasPrefix("SCAN products") && !$0.contains("INDEX") } || plan.contains("TEMP B-TREE")
    }

    static func plan(_ db: Database, _ statement: (sql: String, arguments: [DatabaseValue])) throws -> String {
        try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: StatementArguments(statement.arguments))
            .map { $0["detail"] as String }.joined(separator: "; ")
    }

    /// The statements the store runs for the first page, a page from a cursor and the count of every documented
    /// filter in every ordering.
    @Test func pagesAndCountsOfEveryFilterAndOrderingReadAnIndex() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let failures = try await temporary.rawQueue().read { db in
            var failures: [String] = []
            for (name, filter) in Self.filters {
                let conditions = SQLiteConditions(filter.query.conditions)
                let count = try Self.plan(db, SQLiteCatalogStore.productCount(filter.query, search: filter.query.search, conditions))
                if Self.problem(count) { failures.append("count of \(name): \(count)") }
                for ordering in Self.orderings {
                    let field = ordering.hasPrefix("-") ? String(ordering.dropFirst()) : ordering
                    let sortValue: ListCursor.Value = ["price", "stock"].contains(field) ? .integer(5) : .text("m")
                    let cursor = ListCursor(ordering: ordering, direction: .next, sortValue: sortValue, key: .text("K")).encoded()
                    for request in [PageRequest(ordering: ordering), PageRequest(ordering: ordering, cursor: cursor)] {
                        let statement = try SQLiteCatalogStore.productListing.pageStatement(request, conditions: conditions)
                        let plan = try Self.plan(db, (statement.sql, statement.arguments))
                        if Self.problem(plan) {
                            failures.append("\(name), ordering=\(ordering)\(request.cursor == nil ? "" : ", from a cursor"): \(plan)")
                        }
                    }
                }
            }
            return failures
        }
        #expect(failures.isEmpty, "\(failures.count) plans read the table or sort:\n\(failures.joined(separator: "\n"))")
    }

    /// A search with each filter: every step of its ranked walk reads the search index in its order and looks the
    /// rows up by rowid, and so does its count.
    @Test func searchesWithEveryFilterReadTheSearchIndex() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let failures = try await temporary.rawQueue().read { db in
            var failures: [String] = []
            let search = SearchQuery("desk lam")
            for (name, filter) in Self.filters {
                var searched = filter
                searched.search = "desk lam"
                let filters = SQLiteConditions(filter.query.conditions)
                let count = try Self.plan(db, SQLiteCatalogStore.productCount(searched.query, search: searched.query.search, filters))
                if Self.problem(count) { failures.append("count of a search and \(name): \(count)") }
                let steps = [RankedWalk.Step(rank: 0, beyond: nil, ascending: true), RankedWalk.Step(rank: 2, beyond: 7, ascending: false)]
                for (step, leading) in steps.flatMap({ step in [(step, LeadingRows.none), (step, LeadingRows([3, 9]))] }) {
                    let statement = SQLiteSearchIndex.products.stepStatement(
                        step, query: search, leading: leading, limit: 21, listed: "products", columns: ProductRow.columns,
                        keyColumn: "serial_code", filters: filters)
                    let plan = try Self.plan(db, statement)
                    // The leading rows' own step looks them up by rowid; every other step reads the search index.
                    let readsIndex = leading.fieldRank(step.rank) == nil || plan.contains("VIRTUAL TABLE")
                    if Self.problem(plan) || !readsIndex { failures.append("a search and \(name), rank \(step.rank), \(leading): \(plan)") }
                }
            }
            return failures
        }
        #expect(failures.isEmpty, "\(failures.count) plans read the table or sort:\n\(failures.joined(separator: "\n"))")
    }
}
