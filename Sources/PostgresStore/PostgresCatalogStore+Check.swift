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
            // A vector is what its expression makes of the row, whether the server generated it or the writer computed it
            // (products), unless the search functions were replaced since: the newest rows are computed again and
            // compared, and an index left invalid (a failed concurrent build) is named.
            for (table, index) in [("products", PostgresSearchIndex.products), ("films", .films), ("categories", .categories)] {
                let sample = """
                    SELECT COUNT(*)::bigint FROM (SELECT search_vector, \(index.vectorExpression) AS computed FROM \(table)
                    ORDER BY \(index.orderColumn) DESC LIMIT 1000) AS newest WHERE search_vector IS DISTINCT FROM computed
                    """
                let differing = try await fetchInteger(connection, PostgresQuery(unsafeSQL: sample))
                if differing > 0 { problems.append("search index of \(table): \(differing) of the newest 1000 rows differ from their text") }
            }
            problems += try await checkWords(connection, PostgresSearchIndex.products, of: "products")
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

    /// The runs of `table`'s words against its rows' vectors: as many entries as the vectors hold words, each run
    /// ascending from its first order and no longer than a run is written, and for the newest 1000 rows, the very
    /// entries their vectors make; and each word's kept count against the rows that hold it.
    private func checkWords(_ connection: PostgresConnection, _ index: PostgresSearchIndex, of table: String) async throws -> [String] {
        guard let runsTable = index.wordRunsTable else { return [] }
        var problems: [String] = []
        let totals = """
            SELECT (SELECT COALESCE(SUM(cardinality(orders)), 0) FROM \(runsTable))::bigint
            - (SELECT COALESCE(SUM(length(search_vector)), 0) FROM \(table))::bigint
            """
        let surplus = try await fetchInteger(connection, PostgresQuery(unsafeSQL: totals))
        if surplus != 0 { problems.append("search words of \(table): \(surplus) entries more than the rows hold words") }
        let malformed = """
            SELECT ((SELECT COUNT(*) FROM \(runsTable) WHERE cardinality(orders) NOT BETWEEN 1 AND \(PostgresSearchIndex.wordRunLength)
            OR orders[1] IS DISTINCT FROM first_order OR orders <> ARRAY(SELECT DISTINCT held FROM unnest(orders) AS held ORDER BY held))
            + (SELECT COUNT(*) FROM (SELECT orders[cardinality(orders)] AS last, lead(first_order) OVER (PARTITION BY word, rank ORDER BY first_order)
            AS next FROM \(runsTable)) AS neighbours WHERE next <= last))::bigint
            """
        let badRuns = try await fetchInteger(connection, PostgresQuery(unsafeSQL: malformed))
        if badRuns > 0 {
            problems.append(
                "search words of \(table): \(badRuns) runs are not ascending from their first order within their length and before the next")
        }
        let newest = """
            WITH newest AS (SELECT \(index.orderColumn), search_vector FROM \(table) ORDER BY \(index.orderColumn) DESC LIMIT 1000),
            made AS (\(index.wordEntries(of: "newest"))),
            stored AS (SELECT word, rank, product_order FROM (\(index.runEntries("true", runs: runsTable))) AS entries
            WHERE product_order IN (SELECT \(index.orderColumn) FROM newest))
            SELECT ((SELECT COUNT(*) FROM (SELECT * FROM made EXCEPT SELECT * FROM stored) AS missing)
            + (SELECT COUNT(*) FROM (SELECT * FROM stored EXCEPT SELECT * FROM made) AS extra))::bigint
            """
        let differing = try await fetchInteger(connection, PostgresQuery(unsafeSQL: newest))
        if differing > 0 { problems.append("search words of \(table): \(differing) entries of the newest 1000 rows differ from their words") }
        guard let wordCountsTable = index.wordCountsTable else { return problems }
        let counts = """
            SELECT COUNT(*)::bigint FROM (SELECT word.lexeme AS word, COUNT(*) AS products FROM \(table), unnest(\(table).search_vector) AS word
            GROUP BY word.lexeme) AS held
            FULL JOIN \(wordCountsTable) AS kept USING (word) WHERE COALESCE(held.products, 0) <> COALESCE(kept.products, 0)
            """
        let miscounted = try await fetchInteger(connection, PostgresQuery(unsafeSQL: counts))
        if miscounted > 0 { problems.append("search words of \(table): \(miscounted) words counted otherwise than the rows hold them") }
        return problems
    }
}
