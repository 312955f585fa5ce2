import CatalogModel
import CatalogStore
import Foundation
import GRDB
import Testing

@testable import SQLiteStore

@Suite("The version check sees every commit at once (SQLite)")
struct VersionWatchTests {
    /// Each commit rewrites the WAL index's header, also after a checkpoint has emptied the log.
    @Test func everyCommitOfAnotherConnectionIsSeenByTheNextCheck() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        #expect(store.versionsReadFromWALIndex)
        let other = try temporary.rawQueue()
        var expected = try store.currentVersions().films
        for round in 0..<20 {
            try await other.write { db in try db.execute(sql: "UPDATE versions SET version = version + 1 WHERE name = 'films'") }
            expected += 1
            #expect(try store.currentVersions().films == expected)
            #expect(try store.currentVersions().films == expected)
            if round % 5 == 4 { try await other.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }
        }
    }

    @Test func aCommitOfAnotherProcessIsSeenByTheNextCheck() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let before = try temporary.store.currentVersions()
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute(\"UPDATE versions SET version = version + 7 WHERE name = 'products'\"); db.commit()",
            temporary.path,
        ]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        #expect(try temporary.store.currentVersions().products == before.products + 7)
    }

    /// A file that is not in WAL mode has no shared index: the check asks `PRAGMA data_version` instead.
    @Test func aFileWithoutAWALIndexIsCheckedByItsDataVersion() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        try temporary.store.close()
        let other = try temporary.rawQueue()
        try await other.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
        let watch = try VersionWatch(path: temporary.path)
        defer { watch.close() }
        #expect(!watch.readsWALIndex)
        let before = try watch.current()
        try await other.write { db in try db.execute(sql: "UPDATE versions SET version = version + 3 WHERE name = 'products'") }
        #expect(try watch.current().products == before.products + 3)
        #expect(try watch.current().products == before.products + 3)
    }
}
