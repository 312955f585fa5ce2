import CatalogModel
import CatalogStore
import CatalogStoreKit
import PostgresNIO

extension PostgresCatalogStore {
    /// Every derived count against a recount, history continuity, the rejection lines kept (`StoreCheckRule`) and the search vectors
    /// of a sample; PostgreSQL keeps its own pages and constraints checked, so there is no engine integrity pass
    /// to run here.
    public func check() async throws -> [String] {
        try await transaction(.read) { connection in
            var problems: [String] = []
            for rule in StoreCheckRule.all {
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: rule.sql), logger: logger) {
                    problems.append(rule.problem(try row.map(ListCursor.Value.init)))
                }
            }
            // A generated column is what its expression makes of the row, unless the search functions were replaced
            // since: the newest rows are computed again and compared, and an index left invalid (a failed concurrent
            // build) is named.
            for (table, index) in [("products", PostgresSearchIndex.products), ("films", .films), ("categories", .categories)] {
                let sample = """
                    SELECT COUNT(*)::bigint FROM (SELECT search_vector, \(index.vectorExpression) AS computed FROM \(table)
                    ORDER BY \(index.orderColumn) DESC LIMIT 1000) AS newest WHERE search_vector IS DISTINCT FROM computed
                    """
                let differing = try await fetchInteger(connection, PostgresQuery(unsafeSQL: sample))
                if differing > 0 { problems.append("search index of \(table): \(differing) of the newest 1000 rows differ from their text") }
            }
            let invalid: PostgresQuery = """
                SELECT indexrelid::regclass::text FROM pg_index WHERE NOT indisvalid
                AND indrelid IN ('products'::regclass, 'films'::regclass, 'categories'::regclass)
                """
            for try await name in try await connection.query(invalid, logger: logger).decode(String.self) {
                problems.append("index \(name): invalid; drop and create it again")
            }
            return problems
        }
    }
}
