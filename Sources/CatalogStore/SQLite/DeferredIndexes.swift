import GRDB

/// A table's own indexes, dropped while one transaction fills the empty table and built again before it commits.
///
/// An index built from the finished table sorts it once; kept up to date row by row, the product indexes (three then)
/// cost a first import of 100,000 products about as much as the rows themselves (0.50 s against 0.15 s for building
/// them afterwards, in the `sqlite3` library of this machine). Both happen inside the transaction: readers never see
/// the table without its indexes, and a run that rolls back leaves them as they were.
struct DeferredIndexes {
    private let definitions: [String]

    /// Drops the plain indexes `table`'s schema declares: not those behind its key or a unique constraint, nor a unique
    /// or partial index someone added, which must go on refusing rows while the table fills.
    static func drop(on table: String, _ db: Database) throws -> DeferredIndexes {
        let indexes = try Row.fetchAll(
            db,
            sql: """
                SELECT schema.name, schema.sql FROM pragma_index_list(?) AS list JOIN sqlite_schema AS schema ON schema.name = list.name
                WHERE list.origin = 'c' AND list."unique" = 0 AND list.partial = 0 ORDER BY schema.name
                """,
            arguments: [table])
        for index in indexes {
            let name: String = index["name"]
            try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
        }
        return DeferredIndexes(definitions: indexes.map { $0["sql"] })
    }

    /// Creates the dropped indexes again, as they were declared.
    func rebuild(_ db: Database) throws {
        for definition in definitions { try db.execute(sql: definition) }
    }
}
