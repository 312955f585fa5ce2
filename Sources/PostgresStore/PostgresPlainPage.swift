import CatalogStore
import Logging
import PostgresNIO

/// The first pages of all products in one of their orderings, with no filter and no search (`?ordering=stock`), as
/// statements the generic-plan pool's connections prepare once and plan once for any page size
/// (`PostgresGenericPlanPool`; such a read takes a connection of that pool alone): parsing and planning such a page
/// took twice as long as running it (0.44 ms a first page by stock at a million products, 0.14 prepared with one
/// plan; pgbench). Such a page is the start of its ordering's index (`PostgresPlanTests` asks for that plan with
/// scans and sorts made a last resort; `EXPLAIN` of each at a million products, without, gave the same).
///
/// postgres-nio names a prepared statement and its SQL by its type, so each of these statements is a type of its
/// own: `PostgresPlainPage` of a number (`PlainPageNumber`), its place in `statements`.
enum PostgresPlainPages {
    /// The first page of each plain ordering of products, ascending and descending, as
    /// `PostgresListing.pageStatement` makes it for a request without filters. Not a page from a cursor: planned once
    /// for any cursor, its probe for rows behind the cursor read the whole table at a million products (441 ms), where
    /// a cursor's own values make the planner take the index.
    static let statements: [String] = ListOrdering.products.fields.filter { $0 != ListOrdering.relevance }.flatMap { field in
        [field, "-" + field].map { ordering in
            var conditions = PostgresConditions()
            let count = PostgresCatalogStore.productCount(ProductFilter().query, &conditions)
            // An ordering of `fields`: the statement is always made.
            return (try? PostgresListing.products.pageStatement(PageRequest(ordering: ordering), conditions: conditions, count: count))?.page ?? ""
        }
    }

    private static let numbers = Dictionary(uniqueKeysWithValues: statements.enumerated().map { ($0.element, $0.offset) })

    /// The number of the statement whose SQL is `sql`; nil for any other.
    static func number(of sql: String) -> Int? {
        numbers[sql]
    }
}

/// A number as a type: the first, and the one after another.
protocol PlainPageNumber {
    static var value: Int { get }
}

enum FirstPlainPage: PlainPageNumber {
    static var value: Int { 0 }
}

enum NextPlainPage<Previous: PlainPageNumber>: PlainPageNumber {
    static var value: Int { Previous.value + 1 }
}

/// The statement `PostgresPlainPages.statements[Number.value]`, prepared.
struct PostgresPlainPage<Number: PlainPageNumber>: PostgresPreparedStatement {
    // Short: PostgreSQL keeps 63 bytes of a prepared statement's name, and a type's full name is longer.
    static var name: String { "catalogd_plain_page_\(Number.value)" }
    static var sql: String { PostgresPlainPages.statements[Number.value] }
    let binds: PostgresBindings

    func makeBindings() -> PostgresBindings { binds }

    func decodeRow(_ row: PostgresRow) -> PostgresRandomAccessRow { row.makeRandomAccess() }
}

extension PostgresConnection {
    /// The rows of the first plain page numbered `number` (`PostgresPlainPages`), prepared once per connection: its type
    /// is found by counting up from `Number`.
    func rows<Number: PlainPageNumber>(
        ofPlainPage number: Int, binds: PostgresBindings, from _: Number.Type = FirstPlainPage.self, logger: Logger
    ) async throws -> [PostgresRandomAccessRow] {
        guard number > Number.value else {
            var fetched: [PostgresRandomAccessRow] = []
            for try await row in try await execute(PostgresPlainPage<Number>(binds: binds), logger: logger) { fetched.append(row) }
            return fetched
        }
        return try await rows(ofPlainPage: number, binds: binds, from: NextPlainPage<Number>.self, logger: logger)
    }
}
