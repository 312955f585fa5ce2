import CatalogModel
import CatalogStore
import CatalogTestSupport
import Logging
import PostgresStore
import Prometheus
import Testing

@testable import CatalogAPI
@testable import SQLiteStore

struct FrequentTermsServiceTests {
    /// The service waits for the next commit between looks; a look that fails rests a second instead. With a commit
    /// told by the watch and the store unreadable, it looked again at once, over and over, a warning each time.
    @Test func aStoreThatCannotBeReadIsLookedAtAgainAfterASecondNotAtOnce() async throws {
        let lines = RecordedLines()
        let logger = Logger(label: "catalogd-tests") { _ in RecordingLogHandler(lines: lines) }
        let location = PostgresLocation(
            host: "127.0.0.1", port: try await StoreOutageTests.closedPort(), username: "catalogd", database: "catalog", tls: .disable)
        let store = PostgresCatalogStore.connect(location, connectionWait: .milliseconds(200), logger: logger)
        defer { store.close() }
        let notifier = ChangeNotifier()
        await notifier.publish(5)
        let service = FrequentTermsService(
            store: store, notifier: notifier, policy: FrequentTermPolicy(), registry: PrometheusCollectorRegistry(), logger: logger)
        let ended = RecordedLines()
        let running = Task {
            try? await service.run()
            ended.append("ended")
        }
        func failures() -> Int { lines.all.filter { $0.contains("reading the frequent terms' sets failed") }.count }
        // From the first failed look (a loaded machine may take seconds to get there), 2.5 s of looks.
        let started = ContinuousClock.now
        while failures() == 0, ContinuousClock.now - started < .seconds(20) { try await Task.sleep(for: .milliseconds(20)) }
        let first = failures()
        try await Task.sleep(for: .milliseconds(2_500))
        let looks = failures() - first
        running.cancel()
        #expect(first > 0, "the service looked")
        #expect(looks <= 4, "\(looks) failed looks in 2.5 s")
        // Looked at for a bounded time: a service that does not stop fails here rather than hanging the suite.
        let cancelled = ContinuousClock.now
        while ended.all.isEmpty, ContinuousClock.now - cancelled < .seconds(3) { try await Task.sleep(for: .milliseconds(50)) }
        let stopped = !ended.all.isEmpty
        #expect(stopped, "the service stops when its task is cancelled")
    }

    /// A read that asks for a typed prefix's sets wakes the service, which adds them without waiting for a commit: it
    /// waited for the next commit or `pollInterval` (a minute here), and the reads in between counted the prefix from
    /// the search index.
    @Test func aPrefixAReadAsksForHasItsSetsAddedWithoutACommit() async throws {
        let temporary = try await TestStore.open(.sqlite)
        defer { temporary.remove() }
        let store = try #require(temporary.store as? SQLiteCatalogStore)
        let products = try (0..<40).map { index in
            Product(
                serialCode: "P\(index)", name: index % 2 == 0 ? "cable \(index)" : "cart", description: "", category: "c", brand: "b",
                price: try Price(parsing: "1"))
        }
        _ = try await store.upsertProducts(products, author: "api")
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.9
        let service = FrequentTermsService(
            store: store, notifier: ChangeNotifier(), policy: policy, registry: PrometheusCollectorRegistry(),
            logger: Logger(label: "catalogd-tests"), pollInterval: .seconds(60))
        let running = Task { try? await service.run() }
        defer { running.cancel() }
        func waited(_ holds: () -> Bool) async throws -> Bool {
            let started = ContinuousClock.now
            while !holds(), ContinuousClock.now - started < .seconds(20) { try await Task.sleep(for: .milliseconds(20)) }
            return holds()
        }
        let read = try await waited { store.frequentTermsVersion != nil }
        #expect(read, "the sets were read at start-up")
        store.frequentTerms.ask(SearchQuery("ca"), matches: FrequentTerms.widePrefixMatches)
        #expect(store.frequentTermsWanted)
        let added = try await waited { store.frequentTerms.latest?.holdsPrefix("ca") == true }
        #expect(added, "the prefix's sets were added within 20 s, no commit since")
    }
}
