import CatalogFixtures
import CatalogImport
import CatalogModel
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CatalogAPI

@Suite("What operators see")
struct OperationsTests {
    @Test func freshnessCountsFromTheStartUntilASourceFirstSucceeds() {
        let started = Date(timeIntervalSince1970: 1_000_000)
        let freshness = ImportFreshness(sources: [.films, .products], staleAfter: .seconds(3600), serviceStarted: started)
        let recent = Timestamp.string(from: started.addingTimeInterval(3000))
        #expect(freshness.staleness(lastSuccess: [:], now: started.addingTimeInterval(600)) == nil)
        let neverSucceeded = freshness.staleness(lastSuccess: [.films: recent], now: started.addingTimeInterval(4000))
        #expect(neverSucceeded == "products has not imported successfully since the service started, more than --stale-after (3600 s) ago")
        #expect(freshness.staleness(lastSuccess: [.films: recent, .products: recent], now: started.addingTimeInterval(4000)) == nil)
        let old = freshness.staleness(lastSuccess: [.films: recent, .products: recent], now: started.addingTimeInterval(7000))
        #expect(old?.hasPrefix("the last successful import of films finished at 1970-01-12T14:36:40Z") == true)
    }

    @Test(arguments: StoreBackend.available) func readinessFailsNamingTheFeedOnceImportsAreStale(_ backend: StoreBackend) async throws {
        var harness = WriteHarness(backend: backend)
        harness.configuration.feeds = FeedLocations(films: "http://127.0.0.1:9/api/films/", products: "")
        harness.configuration.staleAfter = .milliseconds(50)
        try await harness.run { client, _ in
            try await Task.sleep(for: .milliseconds(100))
            let stale = try await get(client, "/readyz")
            #expect(stale.status == .serviceUnavailable)
            #expect(stale.headers[.contentType] == "application/problem+json")
            let body = try json(stale)
            #expect(string(body["type"]) == "https://catalogd.dev/problems/imports-stale")
            #expect(string(body["detail"])?.contains("films has not imported successfully") == true)
        }
        harness.configuration.staleAfter = nil
        try await harness.run { client, _ in
            let ready = try await get(client, "/readyz")
            #expect(ready.status == .ok)
        }
    }

    @Test(arguments: StoreBackend.available) func importRunsAndTheirRowsAreCountedInTheMetrics(_ backend: StoreBackend) async throws {
        let upstream = FixtureUpstream(catalog: FixtureCatalog(films: 4, products: 0))
        let upstreamPort = try await upstream.start(port: 0)
        var harness = WriteHarness(backend: backend)
        harness.configuration.feeds = FeedLocations(films: "http://127.0.0.1:\(upstreamPort)/api/films/", products: "")
        harness.configuration.staleAfter = .seconds(3600)
        try await harness.run { client, components in
            let first = try await components.importer.run(.films)
            #expect(first.status == .succeeded)
            let metrics = String(buffer: try await get(client, "/metrics").body)
            #expect(metrics.contains(#"catalogd_import_runs_total{source="films",status="succeeded"} 1"#))
            #expect(metrics.contains(#"catalogd_import_rows_total{source="films",outcome="inserted"} 4"#))
            #expect(metrics.contains(#"catalogd_import_duration_seconds_count{source="films"} 1"#))
            let finished = try #require(first.finishedAt.flatMap(Timestamp.date(from:)))
            let lastSuccess = sample(components.metrics.registry, #"catalogd_import_last_success_timestamp_seconds{source="films"}"#)
            #expect(lastSuccess == finished.timeIntervalSince1970)
            let ready = try await get(client, "/readyz")
            #expect(ready.status == .ok)
        }
        await upstream.stop()
    }
}
