import CatalogModel
import CatalogStore
import GRDB
import Testing

@Suite("Values the store cannot read back")
struct StoredValueTests {
    @Test func anUnknownSourceOrStatusIsAnErrorNotADefault() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let report = try await temporary.store.beginImport(source: .films)
        let raw = try temporary.rawQueue()
        for (column, value) in [("source", "podcasts"), ("status", "paused")] {
            let original = try await temporary.store.importReport(id: report.id).0
            #expect(original != nil)
            try await raw.write { db in try db.execute(sql: "UPDATE imports SET \(column) = ? WHERE id = ?", arguments: [value, report.id]) }
            let error = await #expect(throws: UnreadableStoredValue.self) { try await temporary.store.importReport(id: report.id) }
            #expect(error?.column == "imports.\(column)")
            #expect(error?.value == value)
            try await raw.write { db in
                try db.execute(
                    sql: "UPDATE imports SET source = 'films', status = 'running' WHERE id = ?", arguments: [report.id])
            }
        }
    }

    @Test func anUnknownChangeEntityIsAnError() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        _ = try await temporary.store.upsertProducts([try product("A")], author: "api")
        try await temporary.rawQueue().write { db in try db.execute(sql: "UPDATE changes SET entity = 'podcast'") }
        let error = await #expect(throws: UnreadableStoredValue.self) { try await temporary.store.changes(since: 0, limit: 10) }
        #expect(error?.column == "changes.entity")
    }
}
