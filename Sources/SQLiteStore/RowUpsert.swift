import CatalogModel
import CatalogStore
import CatalogStoreKit
import GRDB
import GRDBSQLite

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
        log: inout SQLiteChangeLog
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
