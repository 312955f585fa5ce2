import CatalogImport
import CatalogStore
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

    /// A loopback listener that accepts connections and never says a word, as a server that hangs does.
    static func silentServer() async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).childChannelInitializer { _ in
            MultiThreadedEventLoopGroup.singleton.any().makeSucceededVoidFuture()
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
                    // before and one just after is the baseline: the load moves within a second.
                    func healthz() async throws -> Duration {
                        let started = ContinuousClock.now
                        #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
                        return ContinuousClock.now - started
                    }
                    let before = try await healthz()
                    let started = ContinuousClock.now
                    let response = try await client.execute(uri: path, method: .get)
                    let elapsed = ContinuousClock.now - started
                    let baseline = max(before, try await healthz())
                    let took = elapsed - baseline
                    #expect(response.status == .serviceUnavailable, "\(path)")
                    #expect(response.headers[.retryAfter] == "2", "\(path)")
                    #expect(response.headers[.contentType] == "application/problem+json")
                    #expect(String(buffer: response.body).contains("store-unavailable"))
                    #expect(took < .seconds(5), "\(path) took \(took) more than /healthz (\(baseline))")
                }
                #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
                #expect(try await client.execute(uri: "/readyz", method: .get).status == .serviceUnavailable)
            }
        }
    }
}
