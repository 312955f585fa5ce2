import CatalogTestSupport
import Logging
import PostgresNIO
import Testing

@testable import PostgresStore

@Suite("Tables filled as copies of themselves (PostgreSQL)")
struct TableRebuildTests {
    static let logger = Logger(label: "catalogd-tests")

    /// What a rolled-back transaction found out.
    private struct RolledBack: Error {
        let inPlace: [Bool]
    }

    /// A fresh store's `products`, `product_word_runs` and `changes` are plain enough to be filled as copies whose indexes are built
    /// after their rows: filled in place, a first import of a million products maintains every index row by row (a
    /// trigger whose condition names columns once made `products` look like more than a copy could be).
    @Test func aFreshStoresTablesAreFilledAsCopies() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        let store = try #require(temporary.store as? PostgresCatalogStore)
        do {
            try await store.transaction(.write) { connection in
                var inPlace: [Bool] = []
                for table in ["products", "product_word_runs", "changes"] {
                    inPlace.append(try await PostgresTableRebuild.begin(table, connection, logger: Self.logger).isInPlace)
                }
                throw RolledBack(inPlace: inPlace)
            }
        } catch let rolledBack as RolledBack {
            #expect(rolledBack.inPlace == [false, false, false])
        }
    }
}
