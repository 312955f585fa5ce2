import CatalogModel
import CatalogStore
import Foundation
import Testing

@testable import SQLiteStore

@Suite("Closing the store (SQLite)")
struct StoreCloseTests {
    /// The last connection to close checkpoints the log into the file and removes it, so that the next process to
    /// open the store does not read the whole log again to rebuild its index.
    @Test func closingTheOnlyOpenStoreLeavesNoWriteAheadLog() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let products = try (0..<200).map { try product(String(format: "P%03d", $0)) }
        _ = try await temporary.store.upsertProducts(products, author: "api")
        _ = try await temporary.store.products(ProductFilter(), page: PageRequest())
        _ = try await temporary.store.films(FilmFilter(), page: PageRequest())
        #expect(FileManager.default.fileExists(atPath: temporary.path + "-wal"))
        try temporary.store.close()
        #expect(!FileManager.default.fileExists(atPath: temporary.path + "-wal"))
        let reopened = try SQLiteCatalogStore(path: temporary.path)
        defer { try? reopened.close() }
        #expect(try await reopened.products(ProductFilter(), page: PageRequest()).count == 200)
    }
}
