import CatalogFixtures
import CatalogImport
import CatalogModel
import CatalogStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
import SQLiteStore
import ServiceLifecycle
import Testing

@testable import CatalogAPI

/// The value of one gauge sample in the registry's text output, e.g. `catalogd_changes_clients{feed="stream"}`.
func sample(_ registry: PrometheusCollectorRegistry, _ series: String) -> Double? {
    var buffer: [UInt8] = []
    registry.emit(into: &buffer)
    for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}

/// Waits, for at most `limit`, until `condition` holds; returns whether it did.
func eventually(within limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// The suites that stop a service under load, one at a time: each measures how long a stop takes, and the other's
/// followers would take the cores it measures on.
@Suite(.serialized) struct StoppingSuites {
    static let streamRequest = RawConnection.request("GET", "/changes?since=0", headers: [("Accept", "text/event-stream")])
    static let streamSeries = #"catalogd_changes_clients{feed="stream"}"#
    static let longPollSeries = #"catalogd_changes_clients{feed="longpoll"}"#
}

extension StoppingSuites {
    @Suite("Graceful shutdown with live clients")
    struct ShutdownTests {

        @Test func shutdownEndsStreamsAndLongPollsAndRollsBackAnImportWithinTwoSeconds() async throws {
            let upstream = FixtureUpstream(catalog: FixtureCatalog(films: 0, products: 2000), faults: FixtureFaults(delayMilliseconds: 200))
            let upstreamPort = try await upstream.start(port: 0)
            var harness = WriteHarness()
            harness.configuration.feeds = FeedLocations(films: "", products: "http://127.0.0.1:\(upstreamPort)/products", productPageSize: 50)
            defer { try? FileManager.default.removeItem(at: harness.directory) }
            let logger = Logger(label: "catalogd-tests")
            let (ports, portSink) = AsyncStream<Int>.makeStream()
            let (application, components) = try await harness.build(logger: logger) { portSink.yield($0) }
            try await seedCatalogue(components.store)
            let seq = try await components.store.versions().lastSeq
            let group = serviceGroup(application, components: components, gracefulShutdownSignals: [], logger: logger)
            let running = Task { try await group.run() }
            var portIterator = ports.makeAsyncIterator()
            let port = try #require(await portIterator.next())

            // Followers that hung up: the server must not wait for them either.
            for _ in 0..<20 {
                _ = try await RawConnection.exchange(port: port, request: StoppingSuites.streamRequest) { $0.contains("retry: 2000") }
            }
            // Read up to the whole last event: it may arrive split over several reads.
            let lastEvent = String(buffer: ChangesController<BasicRequestContext>.shutdownEvent(resumingFrom: seq))
            let streams = (0..<200).map { _ in
                Task {
                    try await RawConnection.exchange(port: port, request: StoppingSuites.streamRequest, deadline: .seconds(30)) {
                        $0.contains(lastEvent)
                    }
                }
            }
            let longPolls = (0..<200).map { _ in
                Task {
                    try await RawConnection.exchange(
                        port: port,
                        request: RawConnection.request(
                            "GET", "/changes?since=\(seq)&feed=longpoll&timeout=60000", headers: [("Connection", "close")]),
                        deadline: .seconds(30))
                }
            }
            let registry = components.metrics.registry
            let connected = await eventually {
                // The followers that hung up are counted until their next heartbeat.
                (sample(registry, StoppingSuites.streamSeries) ?? 0) >= 200 && sample(registry, StoppingSuites.longPollSeries) == 200
            }
            #expect(
                connected,
                "streams \(sample(registry, StoppingSuites.streamSeries) ?? -1), long polls \(sample(registry, StoppingSuites.longPollSeries) ?? -1)")
            let (report, completion) = try await components.importer.start(.products)
            #expect(report.status == .running)

            let shutdownStarted = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await running.value
            let shutdownTook = ContinuousClock.now - shutdownStarted
            #expect(shutdownTook < .seconds(2), "shutdown took \(shutdownTook)")

            for stream in streams {
                let received = try await stream.value.received
                #expect(received.contains(lastEvent), "\(received.suffix(200))")
            }
            for longPoll in longPolls {
                let received = try await longPoll.value.received
                #expect(received.hasPrefix("HTTP/1.1 200 OK"), "\(received.prefix(200))")
                #expect(received.contains(#"{"results":[],"last_seq":\#(seq),"pending":0}"#))
            }
            let outcome = await completion.value
            #expect(outcome.status == .failed)
            #expect(outcome.error?.contains("cancelled") == true)
            // The store closed with the service; opened again, it holds what it held before the import.
            let reopened = try SQLiteCatalogStore(path: harness.databasePath)
            defer { try? reopened.close() }
            #expect(try await reopened.versions().lastSeq == seq)
            await upstream.stop()
        }

        @Test func aFollowerThatHungUpIsNoticedAtAHeartbeat() async throws {
            let harness = WriteHarness()
            defer { try? FileManager.default.removeItem(at: harness.directory) }
            let (_, components) = try await harness.build()
            let router = Router()
            var changes = ChangesController<BasicRequestContext>(
                store: components.store, notifier: components.notifier, followers: components.metrics.followers)
            changes.heartbeatInterval = .milliseconds(200)
            changes.addRoutes(to: router.group("changes"))
            let registry = components.metrics.registry
            try await Application(router: router).test(.live) { client in
                let port = try #require(client.port)
                let exchange = try await RawConnection.exchange(port: port, request: StoppingSuites.streamRequest) { text in
                    text.contains("retry: 2000")
                }
                #expect(exchange.received.contains("text/event-stream"))
                // A few heartbeats, not the default interval (15 s): under a full test run one may come late.
                let gone = await eventually(within: .seconds(5)) { sample(registry, StoppingSuites.streamSeries) == 0 }
                #expect(gone, "a stream whose client hung up is still counted: \(sample(registry, StoppingSuites.streamSeries) ?? -1)")
            }
        }
    }
}
