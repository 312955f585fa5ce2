import CatalogModel
import CatalogStore
import Foundation
import SQLiteStore
import Testing

@Suite("Store backups")
struct BackupTests {
    /// Each batch of the writer inserts this many new products and moves as many existing ones to a new category:
    /// one change each, so a committed state has `lastSeq - initial = 2 * (products - initial products)`.
    static let rowsPerBatch = 20

    static func batch(_ number: Int) throws -> [Product] {
        let inserted = try (0..<rowsPerBatch).map { try product("N\(number)-\($0)", category: "c\($0 % 10)") }
        let moved = try (0..<rowsPerBatch).map { try product("P0-\((number * rowsPerBatch + $0) % 1000)", category: "m\(number)") }
        return inserted + moved
    }

    @Test func aBackupTakenDuringWritesIsOneCommittedStateAndPassesTheCheck() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        // 20,000 rows: the copy takes long enough for the writer to commit between and during backups.
        for number in 0..<20 {
            _ = try await store.upsertProducts(try (0..<1000).map { try product("P\(number)-\($0)", category: "c\($0 % 10)") }, author: "api")
        }
        let initialSeq = try await store.versions().lastSeq
        let (progress, reached) = AsyncStream.makeStream(of: Int.self)
        let writer = Task {
            var batches = 0
            for number in 0..<5000 where !Task.isCancelled {
                guard let counts = try? await store.upsertProducts(try Self.batch(number), author: "api") else { break }
                #expect(counts == WriteCounts(inserted: Self.rowsPerBatch, updated: Self.rowsPerBatch))
                batches += 1
                reached.yield(batches)
            }
            reached.finish()
            return batches
        }
        for await batches in progress where batches >= 5 { break }
        var backups: [StoreBackup] = []
        for number in 0..<3 {
            backups.append(try await store.backup(to: temporary.directory.appendingPathComponent("copy-\(number).sqlite").path))
        }
        writer.cancel()
        let batches = await writer.value
        let final = try await store.versions().lastSeq
        #expect(backups.map(\.lastSeq) == backups.map(\.lastSeq).sorted() && Set(backups.map(\.lastSeq)).count == 3, "the writer ran between backups")
        #expect((backups.last?.lastSeq ?? .max) < final, "the writer ran after the last backup (\(batches) batches)")
        for backup in backups {
            let copy = try SQLiteCatalogStore(path: backup.path)
            defer { try? copy.close() }
            let problems = try await copy.check()
            #expect(problems.isEmpty, "\(problems)")
            let statistics = try await copy.statistics()
            let lastSeq = try await copy.versions().lastSeq
            #expect(statistics.products == backup.products && statistics.categories == backup.categories && statistics.changes == backup.changes)
            #expect(lastSeq == backup.lastSeq)
            let written = Int(lastSeq - initialSeq)
            #expect(written == 2 * (statistics.products - 20_000), "not a committed state: \(written) changes, \(statistics.products) products")
            #expect(written % (2 * Self.rowsPerBatch) == 0, "half a batch in the copy")
            #expect(backup.bytes > 0)
        }
    }

    @Test func anExistingDestinationIsReplacedOnlyWhenAskedAndNothingHalfWrittenIsLeft() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts(try (0..<50).map { try product("P\($0)", category: "c\($0 % 3)") }, author: "api")
        let folder = temporary.directory.appendingPathComponent("backups")
        let destination = folder.appendingPathComponent("catalog.sqlite").path
        let first = try await store.backup(to: destination)
        #expect(first.products == 50)
        _ = try await store.upsertProducts([try product("P50")], author: "api")
        await #expect(throws: StoreBackup.Failure.destinationExists(destination)) {
            _ = try await store.backup(to: destination)
        }
        let replaced = try await store.backup(to: destination, replacing: true)
        #expect(replaced.products == 51)
        await #expect(throws: StoreBackup.Failure.destinationIsTheStore(store.path)) {
            _ = try await store.backup(to: store.path, replacing: true)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left == ["catalog.sqlite"])
        let copy = try SQLiteCatalogStore(path: destination)
        defer { try? copy.close() }
        let served = try await copy.products(ProductFilter(), page: PageRequest(pageSize: 100)).rows.map(\.product.serialCode)
        let live = try await store.products(ProductFilter(), page: PageRequest(pageSize: 100)).rows.map(\.product.serialCode)
        #expect(served == live)
    }
}
