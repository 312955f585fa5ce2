import CatalogModel
import CatalogStore
import CatalogStoreKit
import GRDB

extension SQLiteCatalogStore {
    /// Checks what the store promises: SQLite's own integrity, every derived count against a recount, history
    /// continuity (`StoreCheckRule`) and the search indexes against the rows. Returns one line per problem; empty
    /// means healthy.
    public func check() async throws -> [String] {
        try await read { db in
            var problems: [String] = []
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            if integrity != ["ok"] { problems += integrity.map { "sqlite integrity: \($0)" } }
            for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                problems.append("sqlite foreign key: a row of \(row["table"] as String) names a missing row of \(row["parent"] as String)")
            }
            for rule in StoreCheckRule.all {
                problems += try Row.fetchAll(db, sql: rule.sql).map { row in rule.problem(row.databaseValues.map(ListCursor.Value.init)) }
            }
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
    /// `INSERT` of a command, so it runs on the writer, and holds other writes back while it reads every index
    /// (seconds at a million products).
    private func searchIndexProblems() async throws -> [String] {
        try await write { db in
            try [SQLiteSearchIndex.products, .films, .categories].compactMap { index in
                do {
                    try db.execute(sql: "INSERT INTO \(index.table) (\(index.table), rank) VALUES ('integrity-check', 1)")
                    return nil
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
                    return "search index \(index.table): does not match the rows it indexes (\(error.message ?? "corrupt")); rebuild it with "
                        + index.rebuildSQL
                }
            }
        }
    }
}
