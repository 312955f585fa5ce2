import GRDB

/// A table's own indexes, and the triggers that keep what is derived from its rows, dropped while one transaction
/// fills the empty table and made again before it commits.
///
/// An index built from the finished table sorts it once; kept up to date row by row, the product indexes (three then)
/// cost a first import about as much as the rows themselves, several times what building them afterwards costs. The
/// same holds for what triggers derive row by row: the search index, whose words FTS5 builds from the finished table
/// in one pass, and the category counts, one `GROUP BY` of the finished table in half the time the trigger's upsert of
/// each row takes. All of it happens inside the transaction: readers never see the table without its indexes or
/// counts, and a run that rolls back leaves them as they were.
struct DeferredIndexes {
    /// Triggers that keep something derived from a table's rows, and the statements that derive it from the finished table.
    struct Derived {
        let triggerPrefix: String
        let derive: [String]

        /// The search index of `index`, built from the rows, then merged into one segment on a level of its own.
        ///
        /// FTS5 writes the words of a big table out in several segments (one each 64 MB, migration v11), all on the
        /// first level, where the next writes' segments join them: merging that level (`SearchIndexMerger`) rewrote
        /// the whole index at the 13th write after the import (at a million products 2.3 s of a core, beside reads;
        /// migration v14). Merged here, inside the import (2.2 s more at a million), the one segment sits on the second
        /// level, which the writes' segments fill after 16 × 15 writes: the first rewrite came at the 240th write. An
        /// index FTS5 wrote as one segment (under 64 MB of words) stays on the first level, where a rewrite is cheap.
        static func searchIndex(_ index: SQLiteSearchIndex) -> Derived {
            Derived(triggerPrefix: index.table + "_", derive: [index.rebuildSQL, index.optimizeSQL])
        }

        /// Each category's products and products in stock, counted from the rows (without an index, which lacks the stock).
        static let categoryCounts = Derived(
            triggerPrefix: "products_count_",
            derive: [
                "DELETE FROM categories",
                """
                INSERT INTO categories (name, product_count, in_stock_count)
                SELECT category, COUNT(*), SUM(stock > 0) FROM products NOT INDEXED GROUP BY category
                """,
            ])
    }

    private let definitions: [String]
    private let derive: [String]

    /// Drops the plain indexes `table`'s schema declares: not those behind its key or a unique constraint, nor a unique
    /// or partial index someone added, which must go on refusing rows while the table fills. Drops the triggers of
    /// each of `derived` too.
    static func drop(on table: String, derived: [Derived] = [], _ db: Database) throws -> DeferredIndexes {
        let indexes = try Row.fetchAll(
            db,
            sql: """
                SELECT schema.name, schema.sql FROM pragma_index_list(?) AS list JOIN sqlite_schema AS schema ON schema.name = list.name
                WHERE list.origin = 'c' AND list."unique" = 0 AND list.partial = 0 ORDER BY schema.name
                """,
            arguments: [table])
        let triggers = try derived.flatMap { kept in
            try Row.fetchAll(
                db, sql: "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? AND substr(name, 1, ?) = ? ORDER BY name",
                arguments: [table, kept.triggerPrefix.count, kept.triggerPrefix])
        }
        for index in indexes {
            let name: String = index["name"]
            try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
        }
        for trigger in triggers {
            let name: String = trigger["name"]
            try db.execute(sql: "DROP TRIGGER \(name.quotedDatabaseIdentifier)")
        }
        return DeferredIndexes(definitions: (indexes + triggers).map { $0["sql"] }, derive: derived.flatMap(\.derive))
    }

    /// Creates the dropped indexes and triggers again, as they were declared, and derives what the triggers kept from the rows.
    func rebuild(_ db: Database) throws {
        try Self.sortingOnHelperThreads(db) {
            for definition in definitions { try db.execute(sql: definition) }
        }
        for statement in derive { try db.execute(sql: statement) }
    }

    /// Runs `body` with SQLite's sorter cutting a big sort into runs that helper threads sort in temporary files, then
    /// merge: it does so only when a run (the page cache's size) is smaller than the sort and temporary files are files.
    /// The writer's own settings (a 64 MiB cache, temporary data in memory) sort an index of a million products on one
    /// thread; these build the seven indexes of a first import of a million products in about two thirds of the time.
    private static func sortingOnHelperThreads(_ db: Database, _ body: () throws -> Void) throws {
        let settings = ["temp_store", "threads", "cache_size"]
        let kept = try settings.map { setting in try Int.fetchOne(db, sql: "PRAGMA \(setting)") ?? 0 }
        func restore() throws {
            for (setting, value) in zip(settings, kept) { try db.execute(sql: "PRAGMA \(setting) = \(value)") }
        }
        try db.execute(sql: "PRAGMA temp_store = FILE; PRAGMA threads = 2; PRAGMA cache_size = -2000")
        do {
            try body()
        } catch {
            // The failure is what the caller needs to hear; the transaction rolls back either way.
            try? restore()
            throw error
        }
        try restore()
    }
}
