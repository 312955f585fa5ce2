import CatalogModel
import CatalogStore
import Dispatch
import Foundation
import GRDB
import Testing

@testable import SQLiteStore

/// A `DirectReader` is lent to a thread the server answers on, which must not wait: a read gets none when all are
/// lent or the file is locked, and the store then reads through GRDB's pool.
@Suite("Direct readers")
struct DirectReadersTests {
    /// Holds `count` reads of `readers` open on threads of their own until the returned release is called.
    static func holdReads(_ readers: DirectReaders, count: Int) -> @Sendable () -> Void {
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            Thread.detachNewThread {
                _ = try? readers.read { _ in
                    inside.signal()
                    release.wait()
                }
            }
        }
        for _ in 0..<count { inside.wait() }
        return { for _ in 0..<count { release.signal() } }
    }

    @Test func aReadBeyondTheLimitGetsNoReaderUntilOneIsBack() throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let readers = DirectReaders(path: temporary.path, limit: 2)
        let release = Self.holdReads(readers, count: 2)
        #expect(try readers.read { _ in 1 } == nil)
        release()
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        var answer: Int?
        while answer == nil, clock.now < deadline {
            answer = try readers.read { _ in 2 }
            if answer == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(answer == 2)
    }

    /// Every direct reader lent: the store answers through GRDB's readers.
    @Test func theStoreAnswersWhenEveryDirectReaderIsLent() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts([try product("LENT-1")], author: "test")
        let release = Self.holdReads(store.directReaders, count: store.directReaders.limit)
        defer { release() }
        #expect(try store.directReaders.read { _ in 1 } == nil)
        #expect(try await store.product(serialCode: "LENT-1").0?.product.serialCode == "LENT-1")
        #expect(try await store.products(ProductFilter(), page: PageRequest()).rows.map(\.product.serialCode) == ["LENT-1"])
        #expect(try await store.changes(of: .product, key: "LENT-1", limit: 5).count == 1)
    }

    /// A file another connection holds locked: a direct read gives up within its busy timeout, not GRDB's 5 s.
    @Test func aLockedFileGivesUpAtOnce() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-locked-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = Configuration()
        // The lock is held across accesses, as another process's long transaction would hold it.
        configuration.allowsUnsafeTransactions = true
        let locker = try DatabaseQueue(path: path, configuration: configuration)
        try locker.inDatabase { db in try db.execute(sql: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)") }
        let readers = DirectReaders(path: path)
        #expect(try readers.read { try $0.integer("SELECT COUNT(*) FROM t") } == 1)
        try locker.inDatabase { db in try db.execute(sql: "BEGIN EXCLUSIVE; INSERT INTO t VALUES (2)") }
        let clock = ContinuousClock()
        let started = clock.now
        #expect(try readers.read { try $0.integer("SELECT COUNT(*) FROM t") } == nil)
        #expect(clock.now - started < .seconds(2))
        try locker.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        #expect(try readers.read { try $0.integer("SELECT COUNT(*) FROM t") } == 1)
        try locker.close()
    }
}
