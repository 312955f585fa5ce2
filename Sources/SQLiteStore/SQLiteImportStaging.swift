import CatalogModel
import CatalogStore
import CatalogStoreKit
import Foundation
import GRDB

/// An import run's staged products in a temporary SQLite file beside the store: bounded memory for a listing
/// of any size, and a failed run only deletes the file.
struct SQLiteImportStaging: ImportStaging {
    let queue: DatabaseQueue
    let path: String
    /// The store the staged listing is applied to.
    let store: SQLiteCatalogStore

    static let columns = ProductColumn.list(ProductColumn.record)

    init(directory: String, store: SQLiteCatalogStore) throws {
        self.store = store
        path = URL(fileURLWithPath: directory).appendingPathComponent(".catalog-staging-\(UUID().uuidString).sqlite").path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Throwaway data: durability would only cost time.
            try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE staged (
                        serial_code TEXT NOT NULL PRIMARY KEY, position INTEGER NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL,
                        category TEXT NOT NULL, brand TEXT NOT NULL, price TEXT NOT NULL, price_micros INTEGER NOT NULL, stock INTEGER NOT NULL,
                        updated_at TEXT NOT NULL, source_url TEXT NOT NULL)
                    """)
        }
    }

    /// Stages validated products with their positions in the listing; returns a rejection for each
    /// earlier record that one of these replaces.
    func stage(_ batch: [(index: Int, product: Product)]) async throws -> [Rejection] {
        try await queue.write { db in
            let earlier = try db.cachedStatement(sql: "SELECT position FROM staged WHERE serial_code = ?")
            let updates = (["position"] + ProductColumn.values.map(\.rawValue)).map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            let insert = try DirectStatement(
                db,
                sql: """
                    INSERT INTO staged (position, \(Self.columns)) VALUES \(RowUpsert.placeholders(rows: 1, columns: ProductColumn.record.count + 1))
                    ON CONFLICT(serial_code) DO UPDATE SET \(updates)
                    """)
            var replaced: [Rejection] = []
            for (index, product) in batch {
                if let position = try Int.fetchOne(earlier, arguments: [product.serialCode]) {
                    replaced.append(
                        Rejection(index: position, key: product.serialCode, reason: "duplicate key: replaced by the record at index \(index)"))
                }
                try insert.execute { row in
                    row.add(index)
                    ProductColumn.bind(product, into: &row)
                }
            }
            return replaced
        }
    }

    /// Reads every staged product in listing order; called inside the store's write transaction.
    func forEach(_ body: (Product) throws -> Void) throws {
        try queue.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT \(Self.columns) FROM staged ORDER BY position")
            while let row = try rows.next() {
                try body(ProductColumn.product(row))
            }
        }
    }

    /// Applies the staged listing in one transaction of the store; the claim, a lock on a file, cannot be lost
    /// while this process lives.
    func complete(_ report: ImportReport, pages: [FeedPageState], under claim: any StoreClaim) async throws -> ImportReport {
        try await store.writeImport(report, pages: pages) { db, mode, log in try SQLiteProductWriter.apply(self, mode: mode, db: db, log: &log) }
    }

    /// Deletes the staging file.
    func discard() {
        try? queue.close()
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}

extension SQLiteCatalogStore {
    /// A new, empty staging file for one import run, in the store's folder.
    public func makeStaging() async throws -> any ImportStaging {
        try SQLiteImportStaging(directory: URL(fileURLWithPath: path).deletingLastPathComponent().path, store: self)
    }
}
