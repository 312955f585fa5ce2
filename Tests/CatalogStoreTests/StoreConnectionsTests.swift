import CatalogModel
import CatalogStore
import CatalogTestSupport
import Logging
import Testing

@testable import PostgresStore

/// A PostgreSQL store's pool runs only inside the structure that uses it: no task outlives `withConnections`,
/// and `close()` ends a pool run by hand.
@Suite("The store's connections (PostgreSQL)")
struct StoreConnectionsTests {
    @Test func thePoolServesInsideWithConnectionsAndEndsWithIt() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let logger = Logger(label: "catalogd-tests")
        let location = try await TestStore.freshDatabase(logger: logger)
        // Generous, as in every test beside the other suites: a call after the pool has gone is refused at once anyway.
        let store = try await PostgresCatalogStore.open(location, connectionWait: .seconds(20), logger: logger)
        defer { store.close() }
        let inside = try await store.withConnections { try await store.statistics() }
        #expect(inside.products == 0)
        let started = ContinuousClock.now
        await #expect(throws: StoreUnavailable.self) { try await store.statistics() }
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test func closeEndsAPoolRunByHand() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let logger = Logger(label: "catalogd-tests")
        let store = try await PostgresCatalogStore.open(try await TestStore.freshDatabase(logger: logger), logger: logger)
        async let running: Void = store.runConnections()
        #expect(try await store.versions().lastSeq == 0)
        store.close()
        let started = ContinuousClock.now
        await running
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}
