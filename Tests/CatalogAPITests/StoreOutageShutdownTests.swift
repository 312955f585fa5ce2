import CatalogFixtures
import CatalogImport
import CatalogStore
import CatalogTestSupport
import Logging
import PostgresStore
import ServiceLifecycle
import Testing

@testable import CatalogAPI

extension StoppingSuites {
    @Suite("A stop while the database is unreachable")
    struct StoreOutageShutdownTests {
        /// A service that hears neither a graceful shutdown nor a cancellation, as a call waiting on a connection that will
        /// never answer.
        struct UnendingService: Service {
            func run() async {
                await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
            }
        }

        /// How long `running` took to end after `started`, or nil when it has not ended within `limit`: it is left
        /// running, as a stop that hangs cannot be cancelled.
        static func ended(_ running: Task<Void, any Error>, since started: ContinuousClock.Instant, within limit: Duration) async -> Duration? {
            let (ends, end) = AsyncStream<Duration?>.makeStream()
            Task {
                _ = await running.result
                end.yield(ContinuousClock.now - started)
            }
            Task {
                try? await Task.sleep(until: started + limit)
                end.yield(nil)
            }
            for await first in ends { return first }
            return nil
        }

        /// The reproduction of a replica that did not stop after its database restarted: an import is writing its listing
        /// when PostgreSQL goes away (every session closed, its port refusing), then the service is stopped.
        @Test(.enabled(if: StoreBackend.available.contains(.postgres)))
        func aStopEndsWithinItsTimeoutWhenTheDatabaseWentAwayDuringAnImport() async throws {
            let logger = Logger(label: "catalogd-tests")
            let upstream = FixtureUpstream(catalog: FixtureCatalog(films: 0, products: 3000), faults: FixtureFaults(delayMilliseconds: 50))
            let upstreamPort = try await upstream.start(port: 0)
            let (proxy, location) = try await CuttableProxy.start(to: try await TestStore.freshDatabase(logger: logger))
            // A short wait for a connection, as in StoreOutageTests: the run's failure is recorded after it.
            let store = try await PostgresCatalogStore.open(location, connectionWait: .seconds(1), logger: logger)
            defer { store.close() }
            var configuration = ServiceConfiguration()
            configuration.port = 0
            configuration.feeds = FeedLocations(films: "", products: "http://127.0.0.1:\(upstreamPort)/products", productPageSize: 50)
            configuration.importInterval = nil
            configuration.shutdownTimeout = .seconds(2)
            let took = try await store.withConnections {
                let (ports, portSink) = AsyncStream<Int>.makeStream()
                let (application, components) = try await buildApplication(configuration, store: store, logger: logger) { portSink.yield($0) }
                let group = serviceGroup(application, components: components, gracefulShutdownSignals: [], logger: logger)
                let running = Task { try await group.run() }
                var portIterator = ports.makeAsyncIterator()
                _ = await portIterator.next()
                let (report, _) = try await components.importer.start(.products)
                #expect(report.status == .running)
                // A second of pages: the run's transaction is writing its batches, and its claim is held.
                try await Task.sleep(for: .seconds(1))
                await proxy.cut()
                // The store has seen its connections end.
                try await Task.sleep(for: .milliseconds(500))
                let started = ContinuousClock.now
                await group.triggerGracefulShutdown()
                return await Self.ended(running, since: started, within: .seconds(15))
            }
            let stop = try #require(took, "the stop had not ended 15 s after it began")
            #expect(stop < .seconds(3), "the stop took \(stop)")
            await upstream.stop()
        }

        /// Whatever does not end, the stop does: the application is left to the process's end once its timeout and a
        /// second more have passed.
        @Test func aStopEndsSoonAfterItsTimeoutWhenAServiceNeverEnds() async throws {
            let logger = Logger(label: "catalogd-tests")
            let deadline = ShutdownDeadline(
                application: UnendingService(), timeout: .seconds(1), connections: OpenConnections(), clock: StopClock(), logger: logger)
            let group = ServiceGroup(configuration: .init(services: [deadline], gracefulShutdownSignals: [], logger: logger))
            let running = Task { try await group.run() }
            // Running: the group has started its service.
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            await group.triggerGracefulShutdown()
            let took = try #require(await Self.ended(running, since: started, within: .seconds(10)), "the stop had not ended 10 s after it began")
            #expect(took < .seconds(3), "the stop took \(took)")
        }
    }
}
