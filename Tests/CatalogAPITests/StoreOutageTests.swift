import CatalogImport
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOPosix
import PostgresStore
import Testing

@testable import CatalogAPI

@Suite("A database that cannot be reached")
struct StoreOutageTests {
    /// A loopback port nothing listens on: bound by a listener that is then closed.
    static func closedPort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(channel.localAddress?.port)
        try await channel.close()
        return port
    }

    /// A loopback listener that accepts connections and never says a word, as a server that hangs does; it counts them
    /// in `accepted`.
    static func silentServer(accepted: AcceptedConnections? = nil) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).childChannelInitializer { _ in
            accepted?.add()
            return MultiThreadedEventLoopGroup.singleton.any().makeSucceededVoidFuture()
        }.bind(host: "127.0.0.1", port: 0).get()
    }

    @Test func requestsAreAnswered503WithRetryAfterWithinFiveSecondsWhileHealthStaysUp() async throws {
        try await checkOutage(port: try await Self.closedPort())
    }

    @Test func aServerThatAcceptsAndNeverAnswersIsAnOutageToo() async throws {
        let server = try await Self.silentServer()
        let port = try #require(server.localAddress?.port)
        try await checkOutage(port: port)
        try await server.close()
    }

    /// The reproduction of a replica that answered 503 for seconds after PostgreSQL came back (seen by cluster-e2e):
    /// the pool had gone on trying to connect through the outage, pausing longer after each failure (a quarter of the
    /// outage so far, in postgres-nio 1.33), and its pause outlasted a call's wait for a connection.
    @Test(.enabled(if: StoreBackend.available.contains(.postgres)))
    func aPooledCallIsServedAtOnceWhenTheDatabaseComesBack() async throws {
        let logger = Logger(label: "catalogd-tests")
        let database = try await TestStore.freshDatabase(logger: logger)
        let (first, location) = try await CuttableProxy.start(to: database)
        var proxy = first
        let store = try await PostgresCatalogStore.open(location, connectionWait: .seconds(1), logger: logger)
        defer { store.close() }
        try await store.withConnections {
            _ = try await store.currentVersions()
            _ = try await store.importReports(page: PageRequest())
            await proxy.cut()
            // 16 s away, asked as a served replica is: the pool's pause grows past 3 s.
            let away = ContinuousClock.now
            while ContinuousClock.now - away < .seconds(16) {
                await #expect(throws: StoreUnavailable.self) { try await store.importReports(page: PageRequest()) }
                await #expect(throws: StoreUnavailable.self) { try await store.currentVersions() }
                try await Task.sleep(for: .milliseconds(500))
            }
            proxy = try await CuttableProxy.start(to: database.host, port: database.port, listeningOn: location.port)
            // The version check, on a connection of its own, finds the server back...
            let back = ContinuousClock.now
            var checked = false
            while !checked, ContinuousClock.now - back < .seconds(10) {
                checked = (try? await store.currentVersions()) != nil
                if !checked { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(checked, "the version check found the server back within 10 s")
            // ...and the pool serves the next call within its wait, not after its pause.
            let served = ContinuousClock.now
            let reports = try await store.importReports(page: PageRequest())
            let took = ContinuousClock.now - served
            #expect(reports.rows.isEmpty)
            #expect(took < .seconds(1), "the first pooled call after the outage took \(took)")
        }
        await proxy.cut()
    }

    func checkOutage(port: Int) async throws {
        let logger = Logger(label: "catalogd-tests")
        let location = PostgresLocation(host: "127.0.0.1", port: port, username: "catalogd", database: "catalog", tls: .disable)
        // A shorter wait than the default 2 s: the bound checked is the 5 s the service promises, on a machine busy with other tests.
        let store = PostgresCatalogStore.connect(location, poolSize: 3, connectionWait: .seconds(1), logger: logger)
        defer { store.close() }
        try await store.withConnections {
            let application = Application(router: feedlessRouter(store, logger: logger))
            try await application.test(.router) { client in
                for path in ["/products", "/changes?since=0"] {
                    // What the outage adds to a request that does nothing: beside the other suites, this process's
                    // threads are so busy that a `/healthz` alone has taken 3.4 s here. The busier of a `/healthz` just
                    // before and one just after is the baseline: the load moves within a second. The quickest of three
                    // tries counts, so that a second in which the suites starting together hold every thread (a
                    // `/healthz` of 1.5–2 s, then 5.1–5.5 s added to the request) does not; an outage that the service
                    // answered late would be late in each.
                    func healthz() async throws -> Duration {
                        let started = ContinuousClock.now
                        #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
                        return ContinuousClock.now - started
                    }
                    var tries: [(took: Duration, baseline: Duration)] = []
                    for _ in 0..<3 {
                        let before = try await healthz()
                        let started = ContinuousClock.now
                        let response = try await client.execute(uri: path, method: .get)
                        let elapsed = ContinuousClock.now - started
                        let baseline = max(before, try await healthz())
                        tries.append((elapsed - baseline, baseline))
                        #expect(response.status == .serviceUnavailable, "\(path)")
                        #expect(response.headers[.retryAfter] == "2", "\(path)")
                        #expect(response.headers[.contentType] == "application/problem+json")
                        #expect(String(buffer: response.body).contains("store-unavailable"))
                        if tries.last?.took ?? .zero < .seconds(5) { break }
                    }
                    let quickest = try #require(tries.min { $0.took < $1.took })
                    #expect(
                        quickest.took < .seconds(5),
                        "\(path) took \(quickest.took) more than /healthz (\(quickest.baseline)), the quickest of \(tries.count)")
                }
                #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
                #expect(try await client.execute(uri: "/readyz", method: .get).status == .serviceUnavailable)
            }
        }
    }
}
