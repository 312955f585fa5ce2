import CatalogStore
import CatalogTestSupport
import Logging
import PostgresStore
import Testing

struct PostgresPoolTests {
    /// Every command of the CLI asks for a connection right after starting the store's connections: postgres-nio logged
    /// a warning that a connection was asked for before its client ran, on every command, though the call went on to
    /// be served.
    @Test(.enabled(if: StoreBackend.available.contains(.postgres)))
    func aCallMadeAsTheConnectionsStartIsServedWithoutAWarning() async throws {
        let lines = RecordedLines()
        let logger = Logger(label: "catalogd-tests") { _ in RecordingLogHandler(lines: lines) }
        let location = try await TestStore.freshDatabase(logger: logger)
        for _ in 0..<3 {
            // Generous, as for every test store: beside the other suites the server may take seconds to start a
            // session, and the wait is not what is asked here.
            let store = try await PostgresCatalogStore.open(location, connectionWait: .seconds(20), logger: logger)
            defer { store.close() }
            lines.removeAll()
            let statistics = try await store.withConnections { try await store.statistics() }
            #expect(statistics.products == 0)
            #expect(lines.all.filter { $0.hasPrefix("warning") || $0.hasPrefix("error") } == [])
        }
    }
}
