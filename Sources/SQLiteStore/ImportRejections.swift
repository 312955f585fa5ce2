import CatalogModel
import CatalogStore
import GRDB

/// The rejection lines of import reports, one row each in `import_rejections`, in the report's order.
enum ImportRejections {
    /// Replaces the stored lines of report `id` with `rejections`.
    static func save(_ rejections: [Rejection], of id: Int64, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM import_rejections WHERE import_id = ?", arguments: [id])
        let insert = try db.cachedStatement(
            sql: "INSERT INTO import_rejections (import_id, position, record_index, key, reason) VALUES (?, ?, ?, ?, ?)")
        for (position, rejection) in rejections.enumerated() {
            try insert.execute(arguments: [id, position, rejection.index, rejection.key, rejection.reason])
        }
    }

    /// Fills in the rejections of `reports` with one query.
    static func attach(to reports: inout [ImportReport], _ db: Database) throws {
        let withRejections = reports.filter { $0.rejected > 0 }.map(\.id)
        guard !withRejections.isEmpty else { return }
        let placeholders = withRejections.map { _ in "?" }.joined(separator: ", ")
        var byReport: [Int64: [Rejection]] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT import_id, record_index, key, reason FROM import_rejections WHERE import_id IN (\(placeholders))
                ORDER BY import_id, position
                """,
            arguments: StatementArguments(withRejections))
        while let row = try rows.next() {
            byReport[row["import_id"], default: []].append(Rejection(index: row["record_index"], key: row["key"], reason: row["reason"]))
        }
        for index in reports.indices {
            reports[index].rejections = byReport[reports[index].id] ?? []
        }
    }
}
