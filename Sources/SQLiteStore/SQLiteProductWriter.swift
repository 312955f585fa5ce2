import CatalogModel
import CatalogStore
import CatalogStoreKit
import GRDB
import GRDBSQLite

/// Applies products in batches: per batch of up to `batchSize`, one statement finds which rows are new or
/// differ from the stored ones, one writes exactly those and one records their changes. An unchanged row is
/// not written at all. Three statements per batch instead of two or three per row: for an import,
/// SQLite's per-statement work (opening cursors, the statement journal for the count triggers) costs more
/// than the rows themselves.
struct SQLiteProductWriter {
    /// Rows per batch: 12 values a row stays well under SQLite's 32,766 parameters.
    static let batchSize = 100
    /// The most history rows a first import builds the history's index again for, rather than adding its own changes
    /// to it one by one: the rebuild sorts the whole history, so its cost grows with the history, not with the import.
    static let historyRebuiltWhole = 100_000

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
    /// The indexes of the table and of the history while a feed's listing fills the empty table; built again when it is written.
    private let deferredIndexes: [DeferredIndexes]

    private static let columns = ProductColumn.values.map(\.rawValue)

    init(db: Database, mode: WriteMode, keysAreUnique: Bool = false) throws {
        self.db = db
        self.mode = mode
        self.keysAreUnique = keysAreUnique
        startedEmpty = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM products)") ?? false
        source = mode.source
        let ownsSource = mode.ownsSource
        // Writes through the API are a few rows; a feed's listing may be a million, and as many changes in the history.
        // The history's index is built again from all its rows: only when they are few next to what a listing adds.
        if startedEmpty && ownsSource {
            let historyRows = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(seq) - MIN(seq) + 1, 0) FROM changes") ?? 0
            deferredIndexes =
                [try DeferredIndexes.drop(on: "products", derived: [.searchIndex(.products), .categoryCounts], db)]
                + (historyRows <= Self.historyRebuiltWhole ? [try DeferredIndexes.drop(on: "changes", db)] : [])
        } else {
            deferredIndexes = []
        }
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
    static func apply(_ products: [Product], mode: WriteMode, db: Database, log: inout SQLiteChangeLog) throws -> WriteCounts {
        var writer = try SQLiteProductWriter(db: db, mode: mode)
        for product in products { try writer.add(product, log: &log) }
        return try writer.finish(listed: Set(products.lazy.map(\.serialCode)), log: &log)
    }

    /// The same for a staged listing, read row by row so that it never sits in memory whole.
    static func apply(_ staging: SQLiteImportStaging, mode: WriteMode, db: Database, log: inout SQLiteChangeLog) throws -> WriteCounts {
        var writer = try SQLiteProductWriter(db: db, mode: mode)
        var listed: Set<String> = []
        try staging.forEach { product in
            try writer.add(product, log: &log)
            listed.insert(product.serialCode)
        }
        return try writer.finish(listed: listed, log: &log)
    }

    /// The same for a listing that arrives in batches while it is read (`next` answers nil after the last one);
    /// a key given twice throws `StreamedListingAbandoned`.
    static func apply(batches next: () throws -> [Product]?, mode: WriteMode, db: Database, log: inout SQLiteChangeLog) throws -> WriteCounts {
        var writer = try SQLiteProductWriter(db: db, mode: mode, keysAreUnique: true)
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

    private mutating func add(_ product: Product, log: inout SQLiteChangeLog) throws {
        // A key twice in one batch would be compared against the stored row twice: flush first, so the second sees the first.
        if !keysAreUnique {
            if pendingKeys.contains(product.serialCode) { try flush(log: &log) }
            pendingKeys.insert(product.serialCode)
        }
        pending.append(product)
        if pending.count == Self.batchSize { try flush(log: &log) }
    }

    private mutating func flush(log: inout SQLiteChangeLog) throws {
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
                let row = DirectRow(statement: statement)
                return (position: Int(row.integer(0)), isNew: row.integer(1) != 0)
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

    private mutating func finish(listed: @autoclosure () -> Set<String>, log: inout SQLiteChangeLog) throws -> WriteCounts {
        try flush(log: &log)
        for deferred in deferredIndexes { try deferred.rebuild(db) }
        if case .mirror(let feed) = mode, !startedEmpty {
            counts.deleted = try RowUpsert.deleteUnlisted(
                db, entity: .product, table: "products", keyColumn: "serial_code", feed: feed, listed: listed(), log: &log)
        }
        return counts
    }
}
