import CatalogModel
import CatalogStore
import Foundation
import Logging
import PostgresNIO

/// An import run's staged products, rows of the unlogged `staged_products` table under one staging id: bounded
/// memory for a listing of any size, on the server every replica shares.
struct PostgresImportStaging: ImportStaging {
    let id: String
    let client: PostgresClient
    let logger: Logger

    init(client: PostgresClient, logger: Logger) {
        id = UUID().uuidString
        self.client = client
        self.logger = logger
    }

    func stage(_ batch: [(index: Int, product: Product)]) async throws -> [Rejection] {
        let keys = batch.map(\.product.serialCode)
        var earlier: [String: Int] = [:]
        let query: PostgresQuery = """
            SELECT serial_code, position FROM staged_products WHERE staging_id = \(id) AND serial_code = ANY(\(keys)::text[])
            """
        for try await (key, position) in try await client.query(query, logger: logger).decode((String, Int64).self) {
            earlier[key] = Int(position)
        }
        // In listing order, as the SQLite store reports them: each record that replaces an earlier one names it.
        var replaced: [Rejection] = []
        var latest: [String: (index: Int, product: Product)] = [:]
        for (index, product) in batch {
            let key = product.serialCode
            if let position = latest[key]?.index ?? earlier[key] {
                replaced.append(Rejection(index: position, key: key, reason: "duplicate key: replaced by the record at index \(index)"))
            }
            latest[key] = (index, product)
        }
        let rows = latest.values.sorted { $0.index < $1.index }
        var binds = PostgresBindings()
        binds.append(id)
        binds.append(rows.map { Int64($0.index) })
        let listed = PostgresProductWriter.listedSQL(.products(rows.map(\.product)), binds: &binds)
        let columns = (["serial_code"] + PostgresRows.productValues).joined(separator: ", ")
        let updates = (["position"] + PostgresRows.productValues).map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let sql = """
            INSERT INTO staged_products (staging_id, position, \(columns))
            SELECT $1, indexes.position, \(columns) FROM (\(listed)) AS listed
                JOIN unnest($2::bigint[]) WITH ORDINALITY AS indexes(position, n) ON indexes.n = listed.position
            ON CONFLICT (staging_id, serial_code) DO UPDATE SET \(updates)
            """
        try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        return replaced
    }

    /// Deletes the staged rows, from a task of its own: the run that calls it may have been cancelled.
    func discard() async {
        let (client, logger, id) = (client, logger, id)
        let deleted = await Task { try await client.query("DELETE FROM staged_products WHERE staging_id = \(id)", logger: logger) }.result
        if case .failure(let error) = deleted { logger.warning("staged products of \(id) not deleted: \(error)") }
    }
}
