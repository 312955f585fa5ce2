import GRDB

/// A table's own indexes, dropped while one transaction fills the empty table and built again before it commits.
///
/// An index built from the finished table sorts it once; kept up to date row by row, the product indexes (three then)
/// cost a first import of 100,000 products about as much as the rows themselves (0.50 s against 0.15 s for building
/// them afterwards, in the `sqlite3` library of this machine). The same holds for the search index, whose triggers
/// add each row's words as it goes in: FTS5 builds it from the finished table in one pass instead. Both happen inside
/// the transaction: readers never see the table without its indexes, and a run that rolls back leaves them as they
/// were.
struct DeferredIndexes {
    private let definitions: [String]
    private let searchIndex: SQLiteSearchIndex?

    /// Drops the plain indexes `table`'s schema declares: not those behind its key or a unique constraint, nor a unique
    /// or partial index someone added, which must go on refusing rows while the table fills. With a `searchIndex`,
    /// drops the triggers that keep it too.
    static func drop(on table: String, searchIndex: SQLiteSearchIndex?, _ db: Database) throws -> DeferredIndexes {
        let indexes = try Row.fetchAll(
            db,
            sql: """
                SELECT schema.name, schema.sql FROM pragma_index_list(?) AS list JOIN sqlite_schema AS schema ON schema.name = list.name
                WHERE list.origin = 'c' AND list."unique" = 0 AND list.partial = 0 ORDER BY schema.name
                """,
            arguments: [table])
        let triggers = try searchIndex.map { index in
            try Row.fetchAll(
                db, sql: "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? AND substr(name, 1, ?) = ? ORDER BY name",
                arguments: [table, index.table.count + 1, index.table + "_"])
        }
        for index in indexes {
            let name: String = index["name"]
            try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
        }
        for trigger in triggers ?? [] {
            let name: String = trigger["name"]
            try db.execute(sql: "DROP TRIGGER \(name.quotedDatabaseIdentifier)")
        }
        return DeferredIndexes(definitions: (indexes + (triggers ?? [])).map { $0["sql"] }, searchIndex: searchIndex)
    }

    /// Creates the dropped indexes and triggers again, as they were declared, and builds the search index from the rows.
    func rebuild(_ db: Database) throws {
        for definition in definitions { try db.execute(sql: definition) }
        if let searchIndex { try db.execute(sql: "INSERT INTO \(searchIndex.table) (\(searchIndex.table)) VALUES ('rebuild')") }
    }
}
