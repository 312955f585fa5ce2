import CatalogFixtures
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

@testable import CatalogImport

@Suite("Unchanged pages are not read again; changed feed rows are put back")
struct UnchangedPageTests {
    private static let catalog = FixtureCatalog(films: 0, products: 40)

    /// One products pass over the harness's upstream, conditional on `previousPages`.
    private func read(_ harness: ImportHarness, previousPages: [String: FeedPageState]) async throws -> CompletedListing.Records {
        let reader = FeedReader(
            client: UpstreamClient(policy: ImportHarness.quickPolicy, logger: harness.logger), store: harness.store, previousPages: previousPages,
            deadline: .now + .seconds(20), inMemoryProductLimit: FeedReader.defaultInMemoryProductLimit, streamsProducts: false,
            progress: { _, _ in })
        var report = ImportReport(id: 0, source: .products, status: .running, startedAt: Timestamp.now())
        return try await reader.readProducts(from: harness.baseURL + "/products", pageSize: 7, report: &report).records
    }

    @Test(arguments: StoreBackend.available)
    func pagesThatComeBackByteForByteFromAnUpstreamWithoutETagsAreNotParsedAgain(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, Self.catalog, faults: FixtureFaults(disableETags: true))
        defer { Task { await harness.stop() } }
        _ = try await harness.importer().run(.products)
        let pages = try await harness.store.feedPages(source: .products)
        #expect(pages.count == 6)
        #expect(pages.values.allSatisfy { $0.etag == nil && $0.digest?.hasPrefix("r\(FeedReader.readingRevision):") == true })
        #expect(pages.values.allSatisfy { $0.digest?.utf8.count == "r\(FeedReader.readingRevision):".utf8.count + 64 })
        #expect(Set(pages.values.compactMap(\.digest)).count == 6)
        guard case .unchanged(let records) = try await read(harness, previousPages: pages) else {
            Issue.record("the same bytes were read as a changed listing")
            return
        }
        #expect(records == 40)
        // One changed product changes its page's bytes: the listing is read whole.
        await harness.upstream.setCatalog(Self.catalog.changing(fraction: 0.2))
        guard case .products(let products) = try await read(harness, previousPages: pages) else {
            Issue.record("a changed listing was not read whole")
            return
        }
        #expect(products.count == 40)
    }

    @Test(arguments: StoreBackend.available)
    func aWriteMadeWhileARunFindsNothingChangedIsStillPutBackByTheNextRun(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, Self.catalog)
        defer { Task { await harness.stop() } }
        let importer = harness.importer()
        _ = try await importer.run(.products)
        let pages = try await harness.store.feedPages(source: .products)
        #expect(pages.count == 6)
        // A run begins with these pages; a feed row is deleted through the API; the run finds every page unchanged.
        guard case .claimed(let claim) = try await harness.store.claimImport(of: .products) else {
            Issue.record("the products claim was refused")
            return
        }
        let report = try await harness.store.beginImport(source: .products)
        let deleted = try #require(try await harness.allProducts().first?.product.serialCode)
        #expect(try await harness.store.deleteProduct(serialCode: deleted, author: "api"))
        let unchanged = try await harness.store.completeImport(
            report, listing: CompletedListing(records: .unchanged(40), pages: Array(pages.values)), under: claim)
        await claim.release()
        #expect(unchanged.unchanged == 40)
        // The pages still belong to the version before the write: the next run reads the listing whole.
        #expect(try await harness.store.feedPages(source: .products).isEmpty)
        let next = try await importer.run(.products)
        #expect([next.inserted, next.updated, next.deleted] == [Int]([1, 0, 0]))
        #expect(try await harness.allProducts().contains { $0.product.serialCode == deleted })
    }

    @Test(arguments: StoreBackend.available, [true, false])
    func aFeedRowChangedOrDeletedThroughTheAPIIsPutBackByTheNextImport(_ backend: StoreBackend, upstreamETags: Bool) async throws {
        let harness = try await ImportHarness.start(on: backend, Self.catalog, faults: FixtureFaults(disableETags: !upstreamETags))
        defer { Task { await harness.stop() } }
        let importer = harness.importer()
        _ = try await importer.run(.products)
        let imported = try await harness.allProducts().map(\.product)
        var changed = try #require(imported.first)
        changed.name = "renamed through the API"
        _ = try await harness.store.upsertProducts([changed], author: "api")
        #expect(try await harness.store.deleteProduct(serialCode: imported[1].serialCode, author: "api"))
        // The upstream has not changed: only a whole read puts the two rows back.
        let report = try await importer.run(.products)
        #expect([report.inserted, report.updated, report.deleted, report.unchanged] == [Int]([1, 1, 0, 38]))
        #expect(try await harness.allProducts().map(\.product) == imported)
        // Then the pages hold again, and the run after parses none of them.
        let pages = try await harness.store.feedPages(source: .products)
        #expect(pages.count == 6)
        guard case .unchanged(let records) = try await read(harness, previousPages: pages) else {
            Issue.record("the pages after the run that put the rows back are not unchanged")
            return
        }
        #expect(records == 40)
        let again = try await importer.run(.products)
        #expect([again.inserted, again.updated, again.deleted, again.unchanged] == [Int]([0, 0, 0, 40]))
    }
}
