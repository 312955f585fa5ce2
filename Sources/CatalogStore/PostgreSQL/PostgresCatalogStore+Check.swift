import CatalogModel
import CatalogStore
import PostgresNIO

extension PostgresCatalogStore {
    /// Every derived count against a recount, history continuity, the rejection lines kept and the search vectors
    /// of a sample; PostgreSQL keeps its own pages and constraints checked, so there is no engine integrity pass
    /// to run here.
    public func check() async throws -> [String] {
        try await transaction(.read) { connection in
            var problems: [String] = []
            for kind in FilmLinkKind.allCases {
                let sql = """
                    SELECT f.episode_id, f.\(kind.countColumn),
                        (SELECT COUNT(*) FROM film_links l WHERE l.episode_id = f.episode_id AND l.kind = '\(kind.rawValue)') AS actual
                    FROM films f ORDER BY f.episode_id
                    """
                for try await (episodeID, stored, actual) in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(
                    (Int64, Int64, Int64).self) where stored != actual
                {
                    problems.append("film \(episodeID): \(kind.countColumn) is \(stored) but it has \(actual) \(kind)")
                }
            }
            let categories: PostgresQuery = """
                SELECT name, stored, actual FROM (
                    SELECT c.name, c.product_count AS stored, (SELECT COUNT(*) FROM products p WHERE p.category = c.name) AS actual FROM categories c
                    UNION ALL
                    SELECT p.category, NULL, COUNT(*) FROM products p WHERE p.category NOT IN (SELECT name FROM categories) GROUP BY p.category
                ) AS counted WHERE stored IS NULL OR stored != actual ORDER BY name
                """
            for try await (name, stored, actual) in try await connection.query(categories, logger: logger).decode((String, Int64?, Int64).self) {
                if let stored {
                    problems.append("category \(name): product_count is \(stored) but it has \(actual) products")
                } else {
                    problems.append("category \(name): missing, but \(actual) products name it")
                }
            }
            let stock: PostgresQuery = """
                SELECT name, in_stock_count, actual FROM (
                    SELECT c.name, c.in_stock_count, (SELECT COUNT(*) FROM products p WHERE p.category = c.name AND p.stock > 0) AS actual
                    FROM categories c
                ) AS counted WHERE in_stock_count != actual ORDER BY name
                """
            for try await (name, stored, actual) in try await connection.query(stock, logger: logger).decode((String, Int64, Int64).self) {
                problems.append("category \(name): in_stock_count is \(stored) but it has \(actual) products in stock")
            }
            // Every row's last change must be in the history; rows older than the retained window are exempt.
            for (entity, table, key) in [("film", "films", "episode_id"), ("product", "products", "serial_code")] {
                let sql = """
                    SELECT t.\(key)::text FROM \(table) t WHERE t.changed_seq >= COALESCE((SELECT MIN(seq) FROM changes), 9223372036854775807)
                    AND NOT EXISTS (SELECT 1 FROM changes c WHERE c.seq = t.changed_seq AND c.entity = '\(entity)' AND c.key = t.\(key)::text)
                    LIMIT 100
                    """
                for try await missing in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String.self) {
                    problems.append("\(entity) \(missing): its last change is missing from the history")
                }
            }
            let gaps = try await fetchInteger(connection, "SELECT COALESCE((MAX(seq) - MIN(seq) + 1) - COUNT(*), 0)::bigint FROM changes")
            if gaps > 0 { problems.append("history: \(gaps) sequence numbers missing inside the retained window") }
            let lines: PostgresQuery = """
                SELECT i.id, i.rejected, COUNT(r.import_id) AS lines FROM imports i LEFT JOIN import_rejections r ON r.import_id = i.id
                GROUP BY i.id, i.rejected HAVING COUNT(r.import_id) != LEAST(i.rejected, \(Int64(ImportReport.maximumRejections)))
                ORDER BY i.id LIMIT 100
                """
            for try await (id, rejected, kept) in try await connection.query(lines, logger: logger).decode((Int64, Int64, Int64).self) {
                problems.append("import \(id): \(rejected) rejected but \(kept) rejection lines kept")
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
