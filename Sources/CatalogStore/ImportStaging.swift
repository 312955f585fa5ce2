import CatalogModel
import Foundation
import GRDB

/// The products of one import run on their way into the store, kept in a temporary SQLite file beside it.
///
/// Staging lets a listing of any size be read with bounded memory while the store stays untouched: the run
/// is applied in one transaction only once every page has arrived, and a failed run just discards the file.
/// A later record with the same key replaces an earlier one (the last wins), and the caller is told so.
public struct ImportStaging: Sendable {
    let queue: DatabaseQueue
    public let path: String

    static let columns = ProductColumn.list(ProductColumn.record)

    init(directory: String) throws {
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
    public func stage(_ batch: [(index: Int, product: Product)]) async throws -> [Rejection] {
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

    /// Deletes the staging file.
    public func discard() {
        try? queue.close()
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}

extension CatalogStore {
    /// A new, empty staging area for one import run, in the store's folder.
    public func makeStaging() throws -> ImportStaging {
        try ImportStaging(directory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
}
