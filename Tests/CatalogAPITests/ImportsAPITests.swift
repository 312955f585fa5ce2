import CatalogFixtures
import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CatalogAPI

@Suite("Imports through the API")
struct ImportsAPITests {
    @Test func aRunSeenFinishedNeverBlocksTheNextStart() async throws {
        let upstream = FixtureUpstream(catalog: FixtureCatalog(films: 3, products: 0))
        let upstreamPort = try await upstream.start(port: 0)
        var harness = WriteHarness()
        harness.configuration.feeds = FeedLocations(films: "http://127.0.0.1:\(upstreamPort)/api/films/", products: "")
        try await harness.run { client, _ in
            for round in 1...20 {
                let started = try await client.execute(
                    uri: "/imports", method: .post, headers: authorized, body: ByteBuffer(string: #"{"source": "films"}"#))
                #expect(started.status == .accepted, "round \(round): \(String(buffer: started.body))")
                guard let location = started.headers[.location], let path = URL(string: location)?.path else { return }
                // Polls as a script does, as fast as it can, until the report leaves running.
                var polls = 0
                while polls < 100_000, try json(try await get(client, path))["status"] == .string("running") { polls += 1 }
            }
        }
        await upstream.stop()
    }

    @Test(arguments: StoreBackend.available) func aStartAskedForDuringShutdownIsRefusedWith503(_ backend: StoreBackend) async throws {
        var harness = WriteHarness(backend: backend)
        harness.configuration.feeds = FeedLocations(films: "http://127.0.0.1:9/api/films/", products: "")
        try await harness.run { client, components in
            await components.importer.shutDown()
            let refused = try await client.execute(
                uri: "/imports", method: .post, headers: authorized, body: ByteBuffer(string: #"{"source": "films"}"#))
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers[.retryAfter] == "5")
            #expect(try json(refused)["type"] == .string("https://catalogd.dev/problems/shutting-down"))
            #expect(try await components.store.importReports(page: PageRequest()).rows.isEmpty)
        }
    }
}
