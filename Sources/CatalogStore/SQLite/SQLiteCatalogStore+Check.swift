import CatalogModel
import CatalogStore
import GRDB

extension SQLiteCatalogStore {
    /// Checks what the store promises: SQLite's own integrity, every derived count against a recount,
    /// history continuity and the search indexes against the rows. Returns one line per problem; empty means healthy.
    public func check() async throws -> [String] {
        try await database.read { db in
            var problems: [String] = []
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            if integrity != ["ok"] { problems += integrity.map { "sqlite integrity: \($0)" } }
            for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                problems.append("sqlite foreign key: a row of \(row["table"] as String) names a missing row of \(row["parent"] as String)")
            }
            // A report keeps its first `maximumRejections` lines of however many records it rejected.
            let reportLines = try Row.fetchAll(
                db,
                sql: """
                    SELECT i.id, i.rejected, (SELECT COUNT(*) FROM import_rejections r WHERE r.import_id = i.id) AS lines FROM imports i
                    WHERE lines != MIN(i.rejected, ?) ORDER BY i.id LIMIT 100
                    """, arguments: [ImportReport.maximumRejections])
            for row in reportLines {
                problems.append("import \(row["id"] as Int64): \(row["rejected"] as Int) rejected but \(row["lines"] as Int) rejection lines kept")
            }
            for kind in FilmLinkKind.allCases {
                let column = kind.countColumn
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT f.episode_id, f.\(column), (SELECT COUNT(*) FROM film_links l WHERE l.episode_id = f.episode_id AND l.kind = ?) AS actual
                        FROM films f WHERE f.\(column) != actual ORDER BY f.episode_id
                        """, arguments: [kind.rawValue])
                for row in rows {
                    problems.append("film \(row[0] as Int): \(column) is \(row[1] as Int) but it has \(row[2] as Int) \(kind)")
                }
            }
            let categoryRows = try Row.fetchAll(
                db,
                sql: """
                    SELECT name, stored, actual FROM (
                        SELECT c.name, c.product_count AS stored, (SELECT COUNT(*) FROM products p WHERE p.category = c.name) AS actual FROM categories c
                        UNION ALL
                        SELECT p.category, NULL, COUNT(*) FROM products p WHERE p.category NOT IN (SELECT name FROM categories) GROUP BY p.category
                    ) WHERE stored IS NULL OR stored != actual ORDER BY name
                    """)
            for row in categoryRows {
                let name: String = row[0]
                if let stored = row[1] as Int? {
                    problems.append("category \(name): product_count is \(stored) but it has \(row[2] as Int) products")
                } else {
                    problems.append("category \(name): missing, but \(row[2] as Int) products name it")
                }
            }
            let stockRows = try Row.fetchAll(
                db,
                sql: """
                    SELECT name, in_stock_count, actual FROM (
                        SELECT c.name, c.in_stock_count, (SELECT COUNT(*) FROM products p WHERE p.category = c.name AND p.stock > 0) AS actual
                        FROM categories c
                    ) WHERE in_stock_count != actual ORDER BY name
                    """)
            for row in stockRows {
                problems.append("category \(row[0] as String): in_stock_count is \(row[1] as Int) but it has \(row[2] as Int) products in stock")
            }
            // Every row's last change must be in the history; rows older than the retained window are exempt.
            let oldestRetained = try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM changes") ?? Int64.max
            for (entity, table, key) in [("film", "films", "episode_id"), ("product", "products", "serial_code")] {
                let missing = try String.fetchAll(
                    db,
                    sql: """
                        SELECT CAST(t.\(key) AS TEXT) FROM \(table) t WHERE t.changed_seq >= ?
                        AND NOT EXISTS (SELECT 1 FROM changes c WHERE c.seq = t.changed_seq AND c.entity = ? AND c.key = CAST(t.\(key) AS TEXT))
                        LIMIT 100
                        """, arguments: [oldestRetained, entity])
                problems += missing.map { "\(entity) \($0): its last change is missing from the history" }
            }
            let gaps =
                try Int.fetchOne(
                    db, sql: "SELECT (MAX(seq) - MIN(seq) + 1) - COUNT(*) FROM changes") ?? 0
            if gaps > 0 { problems.append("history: \(gaps) sequence numbers missing inside the retained window") }
            let unindexed = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM categories WHERE name NOT IN (SELECT name FROM category_search)
                    UNION ALL SELECT name FROM category_search WHERE name NOT IN (SELECT name FROM categories) LIMIT 100
                    """)
            problems += unindexed.map { "search index category_search: '\($0)' is in one of categories and its index only" }
            return problems
        } + searchIndexProblems()
    }

    /// FTS5's own check of each index against the rows it indexes (`rank` 1 compares with the content). It is an
    /// `INSERT` of a command, so it runs on the writer: a million products take it about 3 s.
    private func searchIndexProblems() async throws -> [String] {
        try await database.write { db in
            try [SQLiteSearchIndex.products, .films, .categories].compactMap { index in
                do {
                    try db.execute(sql: "INSERT INTO \(index.table) (\(index.table), rank) VALUES ('integrity-check', 1)")
                    return nil
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
                    return "search index \(index.table): does not match the rows it indexes (\(error.message ?? "corrupt")); rebuild it with "
                        + "INSERT INTO \(index.table) (\(index.table)) VALUES ('rebuild')"
                }
            }
        }
    }
}
