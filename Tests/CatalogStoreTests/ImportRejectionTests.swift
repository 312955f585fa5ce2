import CatalogModel
import CatalogStore
import Foundation
import GRDB
import Testing

@testable import SQLiteStore

@Suite("Rejections of import reports")
struct ImportRejectionTests {
    static let rejections = [
        Rejection(index: 7, key: "B", reason: "price is missing"), Rejection(index: 2, key: nil, reason: "not an object"),
        Rejection(index: 9, key: "A", reason: "duplicate key: replaced by the record at index 11"),
    ]

    @Test func aReportsRejectionsAreRowsOfTheirOwnReadBackInTheReportsOrder() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        var report = try await temporary.store.beginImport(source: .products)
        for rejection in Self.rejections { report.reject(rejection) }
        report.error = "upstream answered 500"
        try await temporary.store.failImport(report)
        let other = try await temporary.store.beginImport(source: .films)
        #expect(try await temporary.store.importReport(id: report.id).0?.rejections == Self.rejections)
        let listed = try await temporary.store.importReports(page: PageRequest()).rows
        #expect(listed.map(\.id) == [other.id, report.id])
        #expect(listed.map(\.rejections) == [[], Self.rejections])
        let raw = try temporary.rawQueue()
        #expect(try await raw.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM import_rejections") } == 3)
        #expect(try await temporary.store.check().isEmpty)
        // A lost line is a problem `check` names.
        try await raw.write { db in try db.execute(sql: "DELETE FROM import_rejections WHERE position = 1") }
        #expect(try await temporary.store.check() == ["import \(report.id): 3 rejected but 2 rejection lines kept"])
    }

    @Test func migrationMovesTheRejectionsAReportKeptAsJSONIntoTheirTable() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-v2-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("catalog.sqlite").path
        try Self.writeVersion2Store(
            at: path,
            rejections: #"[{"index":7,"key":"B","reason":"price is missing"},{"index":2,"key":null,"reason":"not an object"},"#
                + #"{"index":9,"key":"A","reason":"duplicate key: replaced by the record at index 11"}]"#)
        let store = try SQLiteCatalogStore(path: path)
        defer { try? store.close() }
        #expect(try await store.appliedMigrations().contains("v3: rejections in their own table"))
        let report = try #require(try await store.importReport(id: 1).0)
        #expect(report.rejections == Self.rejections)
        #expect(report.rejected == 3)
        #expect(try await store.check().isEmpty)
    }

    @Test func aDamagedRejectionListStopsTheMigrationNamingIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-v2-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("catalog.sqlite").path
        try Self.writeVersion2Store(at: path, rejections: "not json")
        let error = #expect(throws: UnreadableStoredValue.self) { try SQLiteCatalogStore(path: path) }
        #expect(error?.column == "imports.rejections")
        // The failed migration left the store at v2, with its text.
        let text = try DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "SELECT rejections FROM imports") }
        #expect(text == "not json")
    }

    /// A store as catalogd left it before migration v3, holding one failed products run with `rejections`.
    static func writeVersion2Store(at path: String, rejections: String) throws {
        let queue = try DatabaseQueue(path: path)
        try SQLiteSchema.migrator.migrate(queue, upTo: "v2: successful imports by source")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO imports (source, status, started_at, finished_at, fetched, rejected, rejections, error)
                    VALUES ('products', 'failed', '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', 12, 3, ?, 'upstream answered 500')
                    """, arguments: [rejections])
        }
        try queue.close()
    }
}
