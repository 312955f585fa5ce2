import CatalogStore
import Logging
import PostgresNIO

/// The first page of a ranked search of one whole word without filters, from the table of each product's words
/// (`PostgresListing.MatchSource.words`), as a statement each connection prepares once: parsing it took a third of its
/// time at a million products. It runs on connections that plan it once for any word (`PostgresGenericPlanPool`),
/// which suits it: whatever the word, its runs are a range of the runs table's key (`PostgresPlanTests` asks for that
/// plan).
struct PostgresFirstWordPage: PostgresPreparedStatement {
    /// The statement `PostgresListing.matchesStatement` makes of a whole word's first page, in the default order.
    static let sql: String = {
        let walk = try? RankedWalk(
            PageRequest(ordering: ListOrdering.relevance), ordering: PostgresListing.products.ordering,
            ranks: SearchFields.products.ranks.count)
        return walk.flatMap {
            PostgresListing.products.matchesStatement($0, search: SearchQuery("word "), filters: PostgresConditions(), source: .words)?.sql
        } ?? ""
    }()
    let binds: PostgresBindings

    /// The first word page `statement` is; nil for any other statement.
    init?(_ statement: (sql: String, binds: PostgresBindings)) {
        guard statement.sql == Self.sql else { return nil }
        binds = statement.binds
    }

    func makeBindings() -> PostgresBindings { binds }

    func decodeRow(_ row: PostgresRow) -> PostgresRandomAccessRow { row.makeRandomAccess() }
}

extension PostgresConnection {
    /// The rows of a first word page, prepared once per connection.
    func rows(of page: PostgresFirstWordPage, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var fetched: [PostgresRandomAccessRow] = []
        for try await row in try await execute(page, logger: logger) { fetched.append(row) }
        return fetched
    }
}
