import CatalogModel
import CatalogStore
import GRDB
import GRDBSQLite

/// How a batch of records is applied.
enum WriteMode: Sendable, Equatable {
    /// The records are a feed's complete listing: its rows missing from the listing are deleted,
    /// and every listed row is (again) owned by the feed.
    case mirror(FeedSource)
    /// The records are added or updated through the API; nothing else is touched, and existing rows keep their source.
    case merge
}

extension SQLiteCatalogStore {
    /// Upserts products through the API in one transaction.
    public func upsertProducts(_ products: [Product], author: String) async throws -> WriteCounts {
        try await database.write { db in
            var log = try ChangeLog(db, author: author)
            let counts = try ProductWriter.apply(products, mode: .merge, db: db, log: &log)
            try log.finish()
            return counts
        }
    }

    /// Upserts films through the API in one transaction.
    public func upsertFilms(_ films: [Film], author: String) async throws -> WriteCounts {
        try await database.write { db in
            var log = try ChangeLog(db, author: author)
            let counts = try FilmWriter(db: db, mode: .merge).apply(films, log: &log)
            try log.finish()
            return counts
        }
    }

    /// Deletes one product; false when there was none.
    public func deleteProduct(serialCode: String, author: String) async throws -> Bool {
        try await deleteRow(.product, table: "products", keyColumn: "serial_code", key: serialCode, author: author)
    }

    /// Deletes one film and its links; false when there was none.
    public func deleteFilm(episodeID: Int, author: String) async throws -> Bool {
        try await deleteRow(.film, table: "films", keyColumn: "episode_id", key: String(episodeID), author: author)
    }

    private func deleteRow(_ entity: Change.Entity, table: String, keyColumn: String, key: String, author: String) async throws -> Bool {
        try await database.write { db in
            var log = try ChangeLog(db, author: author)
            try db.execute(sql: "DELETE FROM \(table) WHERE \(keyColumn) = ?", arguments: [key])
            guard db.changesCount > 0 else { return false }
            try log.record(entity, key: key, .delete)
            try log.finish()
            return true
        }
    }
}

/// Applies products in batches: per batch of up to `batchSize`, one statement finds which rows are new or
/// differ from the stored ones, one writes exactly those and one records their changes. An unchanged row is
/// not written at all. Three statements per batch instead of two or three per row: for an import,
/// SQLite's per-statement work (opening cursors, the statement journal for the count triggers) costs more
/// than the rows themselves.
struct ProductWriter {
    /// Rows per batch: 12 values a row stays well under SQLite's 32,766 parameters.
    static let batchSize = 100

    let db: Database
    let mode: WriteMode
    private let source: String
    /// The columns compared and written; without `ownsSource`, an existing row keeps its source.
    private let compared: [String]
    private var compare: StatementsBySize
    private var write: StatementsBySize
    /// Rows that can only be new: a key that is not is refused by the table's key index.
    private var insert: StatementsBySize
    private var pending: [Product] = []
    private var pendingKeys: Set<String> = []
    private(set) var counts = WriteCounts()
    /// Whether the table had no row when the writer began (a first import): a row it writes is then new
    /// unless this writer wrote its key before, so there is nothing to compare, and nothing to delete.
    let startedEmpty: Bool
    /// Whether the caller gives each key once, so that no key needs remembering.
    private let keysAreUnique: Bool
    /// The keys written so far, kept only while `startedEmpty` and keys may repeat.
    private var written: Set<String> = []
    /// The table's indexes while a feed's listing fills the empty table; built again when it is written.
    private let deferredIndexes: DeferredIndexes?

    private static let columns = ProductColumn.values.map(\.rawValue)

    init(db: Database, mode: WriteMode, keysAreUnique: Bool = false) throws {
        self.db = db
        self.mode = mode
        self.keysAreUnique = keysAreUnique
        startedEmpty = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM products)") ?? false
        let ownsSource: Bool
        switch mode {
        case .mirror(let feed):
            source = feed.rawValue
            ownsSource = true
        case .merge:
            source = "api"
            ownsSource = false
        }
        // Writes through the API are a few rows; a feed's listing may be a million.
        deferredIndexes = startedEmpty && ownsSource ? try DeferredIndexes.drop(on: "products", searchIndex: .products, db) : nil
        let compared = ownsSource ? Self.columns + ["source"] : Self.columns
        self.compared = compared
        let valueCount = Self.columns.count + 3
        // Position, key and every column, for each listed row; the answer lists the rows to write, in listing order.
        compare = StatementsBySize { rows in
            """
            SELECT listed.column1, stored.serial_code IS NULL FROM (VALUES \(RowUpsert.placeholders(rows: rows, columns: valueCount))) AS listed
            LEFT JOIN products AS stored ON stored.serial_code = listed.column2
            WHERE stored.serial_code IS NULL OR \(
                compared.enumerated().map { "stored.\($1) IS NOT listed.column\($0 + 3)" }.joined(separator: " OR "))
            ORDER BY listed.column1
            """
        }
        let insertSQL = { (rows: Int) in
            """
            INSERT INTO products (serial_code, \(Self.columns.joined(separator: ", ")), source, changed_seq)
            VALUES \(RowUpsert.placeholders(rows: rows, columns: valueCount))
            """
        }
        insert = StatementsBySize(sql: insertSQL)
        write = StatementsBySize { rows in
            insertSQL(rows) + "\nON CONFLICT(serial_code) DO UPDATE SET "
                + (compared + ["changed_seq"]).map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        }
    }

    /// Upserts every product; in mirror mode, then deletes the feed's rows that are not among them.
    static func apply(_ products: [Product], mode: WriteMode, db: Database, log: inout ChangeLog) throws -> WriteCounts {
        var writer = try ProductWriter(db: db, mode: mode)
        for product in products { try writer.add(product, log: &log) }
        return try writer.finish(listed: Set(products.lazy.map(\.serialCode)), log: &log)
    }

    /// The same for a staged listing, read row by row so that it never sits in memory whole.
    static func apply(_ staging: SQLiteImportStaging, mode: WriteMode, db: Database, log: inout ChangeLog) throws -> WriteCounts {
        var writer = try ProductWriter(db: db, mode: mode)
        var listed: Set<String> = []
        try staging.forEach { product in
            try writer.add(product, log: &log)
            listed.insert(product.serialCode)
        }
        return try writer.finish(listed: listed, log: &log)
    }

    /// The same for a listing that arrives in batches while it is read (`next` answers nil after the last one);
    /// a key given twice throws `StreamedListingAbandoned`.
    static func apply(batches next: () throws -> [Product]?, mode: WriteMode, db: Database, log: inout ChangeLog) throws -> WriteCounts {
        var writer = try ProductWriter(db: db, mode: mode, keysAreUnique: true)
        // Into an empty table the rows are only inserted, and the key's index refuses a key given twice: the
        // listing's keys (40 MB at a million) are kept only when rows are compared and vanished ones deleted.
        var listed: Set<String> = []
        while let batch = try next() {
            for product in batch {
                guard writer.startedEmpty || listed.insert(product.serialCode).inserted else {
                    throw StreamedListingAbandoned("the key '\(product.serialCode)' came twice")
                }
                try writer.add(product, log: &log)
            }
        }
        return try writer.finish(listed: listed, log: &log)
    }

    private mutating func add(_ product: Product, log: inout ChangeLog) throws {
        // A key twice in one batch would be compared against the stored row twice: flush first, so the second sees the first.
        if !keysAreUnique {
            if pendingKeys.contains(product.serialCode) { try flush(log: &log) }
            pendingKeys.insert(product.serialCode)
        }
        pending.append(product)
        if pending.count == Self.batchSize { try flush(log: &log) }
    }

    private mutating func flush(log: inout ChangeLog) throws {
        guard !pending.isEmpty else { return }
        let source = source
        let batch = pending
        let changed: [(position: Int, isNew: Bool)]
        // Every key is inserted, so that a key seen again is found whichever batch it comes back in.
        if startedEmpty, keysAreUnique || batch.reduce(true, { fresh, product in written.insert(product.serialCode).inserted && fresh }) {
            changed = batch.indices.map { (position: $0, isNew: true) }
        } else {
            changed = try compare.statement(db, rows: batch.count).rows { row in
                for (position, product) in batch.enumerated() {
                    row.add(position)
                    Self.bind(product, source: source, seq: nil, into: &row)
                }
            } read: { statement in
                (position: Int(sqlite3_column_int64(statement, 0)), isNew: sqlite3_column_int64(statement, 1) != 0)
            }
        }
        if !changed.isEmpty {
            let firstSeq = log.nextSeq
            let onlyNew = startedEmpty && keysAreUnique
            let statement = try onlyNew ? insert.statement(db, rows: changed.count) : write.statement(db, rows: changed.count)
            do {
                try statement.execute { row in
                    for (offset, change) in changed.enumerated() {
                        Self.bind(batch[change.position], source: source, seq: firstSeq + Int64(offset), into: &row)
                    }
                }
            } catch let error as DatabaseError where onlyNew && error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
                throw StreamedListingAbandoned("a key came twice (\(error.message ?? "a key constraint failed"))")
            }
            try log.record(.product, keys: changed.map { batch[$0.position].serialCode }, .upsert)
        }
        let inserted = changed.lazy.filter(\.isNew).count
        counts.inserted += inserted
        counts.updated += changed.count - inserted
        counts.unchanged += batch.count - changed.count
        pending.removeAll(keepingCapacity: true)
        pendingKeys.removeAll(keepingCapacity: true)
    }

    /// Key, columns and source, then the changed seq unless comparing.
    private static func bind(_ product: Product, source: String, seq: Int64?, into row: inout DirectStatement.Bindings) {
        ProductColumn.bind(product, into: &row)
        row.add(source)
        if let seq { row.add(seq) }
    }

    private mutating func finish(listed: @autoclosure () -> Set<String>, log: inout ChangeLog) throws -> WriteCounts {
        try flush(log: &log)
        try deferredIndexes?.rebuild(db)
        if case .mirror(let feed) = mode, !startedEmpty {
            counts.deleted = try RowUpsert.deleteUnlisted(
                db, entity: .product, table: "products", keyColumn: "serial_code", feed: feed, listed: listed(), log: &log)
        }
        return counts
    }
}

/// Applies film batches; a film changes when a field or any of its links changes.
struct FilmWriter {
    let db: Database
    let mode: WriteMode

    private static let columns = FilmColumn.values

    static func upsertSQL(ownsSource: Bool) -> String {
        RowUpsert.sql(table: "films", keyColumn: "episode_id", columns: columns, ownsSource: ownsSource)
    }

    func apply(_ films: [Film], log: inout ChangeLog) throws -> WriteCounts {
        var counts = WriteCounts()
        let exists = try db.cachedStatement(sql: "SELECT 1 FROM films WHERE episode_id = ?")
        let source: String
        let upsert: Statement
        switch mode {
        case .mirror(let feed):
            source = feed.rawValue
            upsert = try db.cachedStatement(sql: Self.upsertSQL(ownsSource: true))
        case .merge:
            source = "api"
            upsert = try db.cachedStatement(sql: Self.upsertSQL(ownsSource: false))
        }
        for film in films {
            let existed = try Bool.fetchOne(exists, arguments: [film.episodeID]) ?? false
            try upsert.execute(arguments: StatementArguments(FilmColumn.arguments(film) + [source, log.nextSeq]))
            var changed = db.changesCount > 0
            if try replaceLinksIfChanged(of: film) {
                if !changed {
                    try db.execute(sql: "UPDATE films SET changed_seq = ? WHERE episode_id = ?", arguments: [log.nextSeq, film.episodeID])
                }
                changed = true
            }
            guard changed else {
                counts.unchanged += 1
                continue
            }
            if existed { counts.updated += 1 } else { counts.inserted += 1 }
            try log.record(.film, key: String(film.episodeID), .upsert)
        }
        if case .mirror(let feed) = mode {
            let listed = Set(films.lazy.map { String($0.episodeID) })
            counts.deleted = try RowUpsert.deleteUnlisted(
                db, entity: .film, table: "films", keyColumn: "episode_id", feed: feed, listed: listed, log: &log)
        }
        return counts
    }

    private func replaceLinksIfChanged(of film: Film) throws -> Bool {
        let stored = try Row.fetchAll(
            db, sql: "SELECT kind, url FROM film_links WHERE episode_id = ? ORDER BY kind, position", arguments: [film.episodeID])
        var storedLinks: [FilmLinkKind: [String]] = [:]
        for row in stored {
            let kindText: String = row["kind"]
            guard let kind = FilmLinkKind(rawValue: kindText) else { throw UnreadableStoredValue(column: "film_links.kind", value: kindText) }
            storedLinks[kind, default: []].append(row["url"])
        }
        let unchanged = FilmLinkKind.allCases.allSatisfy { (storedLinks[$0] ?? []) == film.links($0) }
        if unchanged { return false }
        try db.execute(sql: "DELETE FROM film_links WHERE episode_id = ?", arguments: [film.episodeID])
        let insert = try db.cachedStatement(sql: "INSERT INTO film_links (episode_id, kind, position, url) VALUES (?, ?, ?, ?)")
        for kind in FilmLinkKind.allCases {
            for (position, url) in film.links(kind).enumerated() {
                try insert.execute(arguments: [film.episodeID, kind.rawValue, position, url])
            }
        }
        return true
    }
}

/// SQL shared by the row writers.
enum RowUpsert {
    /// `(?, ?), (?, ?)` for `rows` rows of `columns` values.
    static func placeholders(rows: Int, columns: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// `INSERT … ON CONFLICT DO UPDATE … WHERE` a column differs, so that an unchanged row is not written
    /// (`changesCount` is 0) and keeps its `changed_seq`. Without `ownsSource`, an update keeps the row's source.
    static func sql(table: String, keyColumn: String, columns: [String], ownsSource: Bool) -> String {
        let compared = ownsSource ? columns + ["source"] : columns
        return """
            INSERT INTO \(table) (\(keyColumn), \(columns.joined(separator: ", ")), source, changed_seq)
            VALUES (?, \(columns.map { _ in "?" }.joined(separator: ", ")), ?, ?)
            ON CONFLICT(\(keyColumn)) DO UPDATE SET
                \((compared + ["changed_seq"]).map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            WHERE \(compared.map { "\(table).\($0) IS NOT excluded.\($0)" }.joined(separator: " OR "))
            """
    }

    /// Deletes the rows a feed owns that its listing no longer has; returns how many.
    static func deleteUnlisted(
        _ db: Database, entity: Change.Entity, table: String, keyColumn: String, feed: FeedSource, listed: Set<String>,
        log: inout ChangeLog
    ) throws -> Int {
        let owned = try String.fetchAll(db, sql: "SELECT CAST(\(keyColumn) AS TEXT) FROM \(table) WHERE source = ?", arguments: [feed.rawValue])
        let delete = try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(keyColumn) = ?")
        var deleted = 0
        for key in owned where !listed.contains(key) {
            try delete.execute(arguments: [key])
            try log.record(entity, key: key, .delete)
            deleted += 1
        }
        return deleted
    }
}
