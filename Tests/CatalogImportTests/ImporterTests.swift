import CatalogFixtures
import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import SQLiteStore
import Testing

@Suite("Importer against the fake upstream")
struct ImporterTests {
    @Test func multiPageFilmsAreImportedWithTheirDerivedCounts() async throws {
        let catalog = FixtureCatalog(films: 6, products: 0)
        let harness = try await ImportHarness.start(catalog)
        defer { Task { await harness.stop() } }
        let report = try await harness.importer().run(.films)
        #expect(report.status == .succeeded)
        #expect(report.inserted == 6)
        #expect(report.fetched == 6)
        let films = try await harness.allFilms()
        #expect(films.map(\.film.episodeID) == catalog.films.map(\.episodeID).sorted())
        for row in films {
            let source = try #require(catalog.films.first { $0.episodeID == row.film.episodeID })
            #expect(row.counts[.characters] == source.characters.count)
            #expect(row.counts[.planets] == source.planets.count)
            #expect(row.film.links(.starships) == source.starships)
        }
        let pagesRequested = await harness.upstream.requestLog().filter { $0.path.hasPrefix("/api/films") }.count
        #expect(pagesRequested == 2)
    }

    @Test(arguments: StoreBackend.available) func aRunWhoseReportIsFinalNoLongerBlocksTheNextStart(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 3, products: 0))
        defer { Task { await harness.stop() } }
        // Work between a run's commit and its bookkeeping (a slow completion hook here) widens the window
        // in which a client that saw the final report could be told the run is still in progress.
        let importer = Importer(
            store: harness.store, locations: FeedLocations(films: "\(harness.baseURL)/api/films/", products: ""),
            client: UpstreamClient(policy: ImportHarness.quickPolicy, logger: harness.logger), logger: harness.logger,
            onCompletion: { _, _ in Thread.sleep(forTimeInterval: 0.05) })
        var last: Task<ImportReport, Never>?
        for round in 1...20 {
            let (report, completion) = try await importer.start(.films)
            last = completion
            var polls = 0
            while polls < 100_000, try await harness.store.importReport(id: report.id).0?.status == .running { polls += 1 }
            let final = try await harness.store.importReport(id: report.id).0
            #expect(final?.status == .succeeded, "round \(round)")
        }
        let outcome = await last?.value
        #expect(outcome?.status == .succeeded)
    }

    @Test(arguments: StoreBackend.available, ["/products", "/products.json", "/products.ndjson"])
    func productsAreImportedFromEveryFormat(backend: StoreBackend, path: String) async throws {
        let catalog = FixtureCatalog(films: 0, products: 50)
        let harness = try await ImportHarness.start(on: backend, catalog)
        defer { Task { await harness.stop() } }
        let report = try await harness.importer(productsPath: path).run(.products)
        #expect(report.status == .succeeded, "\(report.error ?? "")")
        #expect(report.inserted == 50)
        let products = try await harness.allProducts()
        #expect(products.count == 50)
        let first = try #require(catalog.products.min { $0.sku < $1.sku })
        let stored = try #require(products.first)
        #expect(stored.product.serialCode == first.sku)
        #expect(stored.product.price.text == first.price)
        #expect(stored.product.name == first.title)
    }

    @Test(arguments: StoreBackend.available) func aFeedThatCapsItsPagesIsStillReadWhole(_ backend: StoreBackend) async throws {
        // The importer asks for the next page while parsing one, guessing that each page is as long as asked;
        // a feed that gives fewer moves the next skip, and every guess must be thrown away.
        let catalog = FixtureCatalog(films: 0, products: 45)
        let harness = try await ImportHarness.start(on: backend, catalog, faults: FixtureFaults(maximumPageSize: 4))
        defer { Task { await harness.stop() } }
        let report = try await harness.importer(pageSize: 10).run(.products)
        #expect(report.status == .succeeded, "\(report.error ?? "")")
        #expect(report.inserted == 45)
        #expect(report.rejected == 0)
        let stored = try await harness.allProducts().map(\.product.serialCode)
        #expect(stored == catalog.products.map(\.sku).sorted())
    }

    @Test(arguments: StoreBackend.available) func badRecordsAreRejectedWithTheirIndexAndTheRestLands(_ backend: StoreBackend) async throws {
        let catalog = FixtureCatalog(films: 0, products: 30)
        let harness = try await ImportHarness.start(on: backend, catalog, faults: FixtureFaults(invalidRecords: [3, 17]))
        defer { Task { await harness.stop() } }
        let report = try await harness.importer().run(.products)
        #expect(report.status == .succeeded)
        #expect(report.rejected == 2)
        #expect(report.rejections.map(\.index) == [3, 17])
        #expect(report.inserted == 28)
        let count = try await harness.allProducts().count
        #expect(count == 28)
    }

    @Test(arguments: StoreBackend.available) func unchangedReimportWritesNothingAndUsesConditionalRequests(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 6, products: 40))
        defer { Task { await harness.stop() } }
        let importer = harness.importer()
        _ = try await importer.run(.products)
        _ = try await importer.run(.films)
        let before = try await harness.store.versions()
        let productsBefore = try await harness.allProducts()
        await harness.upstream.resetRequestLog()
        let products = try await importer.run(.products)
        let films = try await importer.run(.films)
        #expect([products.inserted, products.updated, products.deleted] == [Int](repeating: 0, count: 3))
        #expect(products.unchanged == 40)
        #expect([films.inserted, films.updated, films.deleted] == [Int](repeating: 0, count: 3))
        #expect(films.unchanged == 6)
        let after = try await harness.store.versions()
        #expect(after.products == before.products)
        #expect(after.films == before.films)
        #expect(after.lastSeq == before.lastSeq)
        let productsAfter = try await harness.allProducts()
        #expect(productsAfter == productsBefore)
        let requests = await harness.upstream.requestLog()
        #expect(!requests.isEmpty)
        #expect(requests.allSatisfy { $0.ifNoneMatch != nil })
        #expect(requests.allSatisfy { $0.status == 304 })
    }

    @Test(arguments: StoreBackend.available) func unchangedReimportWithoutUpstreamETagsStillWritesNothing(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 0, products: 40), faults: FixtureFaults(disableETags: true))
        defer { Task { await harness.stop() } }
        let importer = harness.importer()
        _ = try await importer.run(.products)
        let before = try await harness.store.versions()
        let report = try await importer.run(.products)
        #expect([report.inserted, report.updated, report.deleted, report.unchanged] == [Int]([0, 0, 0, 40]))
        let after = try await harness.store.versions()
        #expect(after.products == before.products)
        #expect(after.lastSeq == before.lastSeq)
    }

    @Test(arguments: StoreBackend.available) func aChangedListingGivesExactCounts(_ backend: StoreBackend) async throws {
        let original = FixtureCatalog(films: 0, products: 60)
        let harness = try await ImportHarness.start(on: backend, original)
        defer { Task { await harness.stop() } }
        let importer = harness.importer()
        _ = try await importer.run(.products)
        let changed = original.changing(fraction: 0.2).dropping(products: 5)
        await harness.upstream.setCatalog(changed)
        let kept = Dictionary(uniqueKeysWithValues: changed.products.map { ($0.sku, $0) })
        let expectedUpdated = original.products.filter { product in
            guard let now = kept[product.sku] else { return false }
            return now.title != product.title || now.price != product.price
        }.count
        let report = try await importer.run(.products)
        #expect(report.status == .succeeded)
        #expect(report.deleted == 5)
        #expect(report.updated == expectedUpdated)
        #expect(expectedUpdated > 0)
        #expect(report.unchanged == 55 - expectedUpdated)
        #expect(report.inserted == 0)
        let stored = try await harness.allProducts()
        #expect(stored.count == 55)
        for row in stored {
            let source = try #require(kept[row.product.serialCode])
            #expect(row.product.price.text == source.price)
            #expect(row.product.name == source.title)
        }
    }

    @Test(arguments: ["/products", "/products.ndjson"])
    func aListingTooLongForMemoryIsStagedOnDiskWithTheSameOutcome(path: String) async throws {
        let original = FixtureCatalog(films: 0, products: 120)
        let harness = try await ImportHarness.start(original, faults: FixtureFaults(invalidRecords: [5]))
        defer { Task { await harness.stop() } }
        // Streamed, a listing is never held or staged; read whole first, it is staged past the limit.
        let staged = harness.importer(productsPath: path, pageSize: 25, inMemoryProductLimit: 10, streamsProducts: false)
        let first = try await staged.run(.products)
        #expect(first.status == .succeeded, "\(first.error ?? "")")
        #expect([first.inserted, first.rejected] == [Int]([119, 1]))
        await harness.upstream.setCatalog(original.changing(fraction: 0.25).dropping(products: 20))
        let second = try await staged.run(.products)
        #expect(second.deleted == 20)
        #expect(second.updated > 0)
        #expect(second.updated + second.unchanged == 99)
        let stored = try await harness.allProducts()
        #expect(stored.count == 99)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: harness.directory.path).filter { $0.contains("staging") }
        #expect(leftovers.isEmpty)
    }

    /// The store's writer waits at most 2 s for the next page of a listing written as it is read; an upstream that
    /// answers slower is read whole instead, and the run still lands whole.
    @Test func aFeedTooSlowToBeWrittenAsItIsReadIsReadWholeAndStillLands() async throws {
        let catalog = FixtureCatalog(films: 0, products: 12)
        let harness = try await ImportHarness.start(catalog, faults: FixtureFaults(delayMilliseconds: 2300))
        defer { Task { await harness.stop() } }
        var patient = ImportHarness.quickPolicy
        patient.requestTimeout = .seconds(10)
        let report = try await harness.importer(pageSize: 6, policy: patient).run(.products)
        #expect(report.status == .succeeded, "\(report.error ?? "")")
        #expect([report.fetched, report.inserted, report.rejected] == [Int]([12, 12, 0]))
        let stored = try await harness.allProducts()
        #expect(stored.count == 12)
        let lastSeq = try await harness.store.versions().lastSeq
        #expect(lastSeq == 12)
    }

    @Test(arguments: [FeedReader.defaultInMemoryProductLimit, 1])
    func duplicateKeysKeepTheLastRecordAndAreReported(inMemoryProductLimit: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-dup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let feed = directory.appendingPathComponent("products.ndjson")
        try Data(
            """
            {"sku":"A","title":"first","category":"c","price":1}
            {"sku":"B","title":"other","category":"c","price":2}
            {"sku":"A","title":"second","category":"c","price":3}

            """.utf8
        ).write(to: feed)
        let store = try SQLiteCatalogStore(path: directory.appendingPathComponent("catalog.sqlite").path)
        let importer = Importer(
            store: store, locations: FeedLocations(films: "", products: feed.path), client: UpstreamClient(logger: .init(label: "test")),
            logger: .init(label: "test"), inMemoryProductLimit: inMemoryProductLimit)
        let report = try await importer.run(.products)
        #expect(report.inserted == 2)
        #expect(report.rejections == [Rejection(index: 0, key: "A", reason: "duplicate key: replaced by the record at index 2")])
        let (row, _) = try await store.product(serialCode: "A")
        #expect(row?.product.name == "second")
        #expect(row?.product.price.text == "3")
    }
}
