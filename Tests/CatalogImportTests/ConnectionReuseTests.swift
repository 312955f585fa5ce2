import CatalogFixtures
import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

@Suite("The pages of an import share connections")
struct ConnectionReuseTests {
    /// The feed reader asks for the page it reads and up to 4 ahead, so 5 requests at most are in flight at once:
    /// a client that reuses its connections never needs more than 5, one that does not opens one per page.
    static let connectionBound = 5

    @Test(arguments: StoreBackend.available) func aHundredPageImportOpensAtMostFiveConnections(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 0, products: 1000))
        defer { Task { await harness.stop() } }
        let report = try await harness.importer(pageSize: 10).run(.products)
        #expect(report.status == .succeeded, "\(report.error ?? "")")
        #expect(report.inserted == 1000)
        let pages = await harness.upstream.requestLog().count
        #expect(pages == 100)
        let accepted = harness.upstream.connections.accepted
        #expect(accepted <= Self.connectionBound, "\(accepted) connections for \(pages) pages")
    }

    @Test(arguments: StoreBackend.available) func aReimportOfUnchangedPagesReusesConnectionsToo(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 0, products: 1000))
        defer { Task { await harness.stop() } }
        let importer = harness.importer(pageSize: 10)
        _ = try await importer.run(.products)
        harness.upstream.connections.resetAccepted()
        let report = try await importer.run(.products)
        #expect(report.status == .succeeded, "\(report.error ?? "")")
        #expect(report.unchanged == 1000)
        let accepted = harness.upstream.connections.accepted
        #expect(accepted <= Self.connectionBound, "\(accepted) connections for 100 conditional pages")
    }

    @Test(arguments: StoreBackend.available) func aFinishedImportLeavesNoConnectionOpen(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 0, products: 200))
        defer { Task { await harness.stop() } }
        let report = try await harness.importer(pageSize: 10).run(.products)
        #expect(report.status == .succeeded, "\(report.error ?? "")")
        // The server hears the client's close a moment after the run ends; wait for it, boundedly.
        var open = harness.upstream.connections.open
        for _ in 0..<50 where open > 0 {
            try await Task.sleep(for: .milliseconds(100))
            open = harness.upstream.connections.open
        }
        #expect(open == 0, "\(open) connections still open after the run")
    }
}
