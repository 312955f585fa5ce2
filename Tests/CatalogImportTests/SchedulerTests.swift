import CatalogFixtures
import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Logging
import ServiceLifecycle
import Testing

@Suite("Scheduled imports")
struct SchedulerTests {
    @Test(arguments: StoreBackend.available)
    func aSecondSchedulerWaitsOutTheIntervalOfARecentSuccessfulRun(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 6, products: 0))
        defer { Task { await harness.stop() } }
        let importer = harness.importer()
        #expect(try await importer.run(.films).status == .succeeded)
        // Another replica starts on the same store a moment later, with the same hourly schedule.
        let replica = try await harness.testStore.openAnother()
        defer { Task { try? await replica.close() } }
        let replicaImporter = Importer(
            store: replica, locations: FeedLocations(films: "\(harness.baseURL)/api/films/", products: ""),
            client: UpstreamClient(policy: ImportHarness.quickPolicy, logger: harness.logger), logger: harness.logger)
        let scheduler = ImportScheduler(importer: replicaImporter, interval: .seconds(3600), logger: harness.logger)
        let group = ServiceGroup(services: [scheduler], logger: harness.logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .seconds(1))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let reports = try await harness.store.importReports(page: PageRequest()).rows
        #expect(reports.count == 1, "the replica imported again: \(reports.map(\.id))")
    }

    @Test(arguments: StoreBackend.available) func everySourceIsImportedAtStartUpAndAGracefulShutdownEndsTheService(_ backend: StoreBackend)
        async throws
    {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 6, products: 25))
        defer { Task { await harness.stop() } }
        let scheduler = ImportScheduler(importer: harness.importer(), interval: .seconds(3600), logger: harness.logger)
        let group = ServiceGroup(services: [scheduler], logger: harness.logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var reports: [ImportReport] = []
            for _ in 0..<200 {
                reports = try await harness.store.importReports(page: PageRequest()).rows
                if reports.count == 2, reports.allSatisfy({ $0.status != .running }) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(reports.map(\.status) == [.succeeded, .succeeded])
            #expect(Set(reports.map(\.source)) == [.films, .products])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let products = try await harness.allProducts().count
        #expect(products == 25)
    }

    /// Each of the eight pages is answered 3 s after it is asked, so that a shutdown that waited for the run would wait
    /// 15 s or more for the pages left; one that cancels it takes a fraction of a second alone, and up to 5.5 s was
    /// seen with the whole suite sharing the process (each hop of the cancellation waits for a thread then).
    @Test(arguments: StoreBackend.available) func shutdownDuringAnImportRollsItBack(_ backend: StoreBackend) async throws {
        let pageDelayMilliseconds = 3_000
        let harness = try await ImportHarness.start(
            on: backend, FixtureCatalog(films: 0, products: 40), faults: FixtureFaults(delayMilliseconds: pageDelayMilliseconds))
        defer { Task { await harness.stop() } }
        var policy = ImportHarness.quickPolicy
        policy.requestTimeout = .seconds(30)
        policy.runTimeout = .seconds(120)
        let importer = Importer(
            store: harness.store,
            locations: FeedLocations(films: "", products: "\(harness.baseURL)/products", productPageSize: 5),
            client: UpstreamClient(policy: policy, logger: harness.logger), logger: harness.logger)
        let scheduler = ImportScheduler(importer: importer, interval: .seconds(3600), logger: harness.logger)
        let group = ServiceGroup(services: [scheduler], logger: harness.logger)
        var shutdownStarted = ContinuousClock.now
        var pagesAnswered = 0
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // Shut down once the run has read its first page and asked for the second, however long starting took.
            for _ in 0..<600 {
                if await !harness.upstream.requestLog().isEmpty { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            try await Task.sleep(for: .milliseconds(300))
            pagesAnswered = await harness.upstream.requestLog().count
            shutdownStarted = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        // With one or two pages read, five or more are left: 15 s of them at least, past the bound.
        let shutdown = ContinuousClock.now - shutdownStarted
        #expect((1...2).contains(pagesAnswered))
        #expect(shutdown < .milliseconds(pageDelayMilliseconds * 3))
        let products = try await harness.allProducts().count
        #expect(products == 0)
        let reports = try await harness.store.importReports(page: PageRequest()).rows
        #expect(reports.count == 1)
        #expect(reports.first?.status == .failed)
        #expect(reports.first?.error?.contains("cancelled") == true)
    }

    @Test(arguments: StoreBackend.available) func readersNeverSeeAHalfAppliedImport(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 0, products: 5000, categories: 12))
        defer { Task { await harness.stop() } }
        let importer = harness.importer(pageSize: 1000)
        let store = harness.store
        let (_, completion) = try await importer.start(.products)
        var observations = 0
        while observations < 2000 {
            let page = try await store.products(ProductFilter(), page: PageRequest(pageSize: 1))
            let categories = try await store.categories(CategoryFilter(), page: PageRequest(pageSize: 1000))
            let allProducts = try await store.products(ProductFilter(), page: PageRequest(pageSize: 1000, cursor: nil))
            // Each call is one read transaction: its count must agree with what it shows.
            #expect(page.count == 0 || page.count == 5000)
            let categorised = categories.rows.reduce(0) { $0 + $1.productCount }
            #expect(categorised == (categories.rows.isEmpty ? 0 : 5000))
            #expect(allProducts.rows.count == min(allProducts.count, 1000))
            observations += 1
            if page.count == 5000 { break }
        }
        let report = await completion.value
        #expect(report.status == .succeeded)
    }
}
