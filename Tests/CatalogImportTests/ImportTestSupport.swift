import CatalogFixtures
import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Logging

/// A fake upstream on a loopback port, a fresh store on one backend, and an importer between them.
struct ImportHarness {
    let upstream: FixtureUpstream
    let port: Int
    let testStore: TestStore
    let logger = Logger(label: "catalogd-tests")

    var store: any CatalogStore { testStore.store }
    /// The store's folder (an SQLite store's file and staging files are in it).
    var directory: URL { testStore.directory }

    static func start(on backend: StoreBackend = .sqlite, _ catalog: FixtureCatalog, faults: FixtureFaults = FixtureFaults()) async throws
        -> ImportHarness
    {
        let upstream = FixtureUpstream(catalog: catalog, faults: faults)
        let port = try await upstream.start(port: 0)
        return ImportHarness(upstream: upstream, port: port, testStore: try await TestStore.open(backend))
    }

    func stop() async {
        await upstream.stop()
        testStore.remove()
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// A policy that fails fast, so fault tests take milliseconds rather than the production minutes.
    static var quickPolicy: UpstreamPolicy {
        var policy = UpstreamPolicy()
        policy.requestTimeout = .seconds(2)
        policy.runTimeout = .seconds(20)
        policy.initialBackoff = .milliseconds(10)
        policy.maximumBackoff = .seconds(2)
        policy.maximumAttempts = 3
        return policy
    }

    func importer(
        productsPath: String = "/products", pageSize: Int = 7, policy: UpstreamPolicy = quickPolicy,
        inMemoryProductLimit: Int = FeedReader.defaultInMemoryProductLimit, streamsProducts: Bool = true
    ) -> Importer {
        Importer(
            store: store,
            locations: FeedLocations(films: "\(baseURL)/api/films/", products: baseURL + productsPath, productPageSize: pageSize),
            client: UpstreamClient(policy: policy, logger: logger), logger: logger, inMemoryProductLimit: inMemoryProductLimit,
            streamsProducts: streamsProducts)
    }

    /// Every product as the store has it, in key order, for before/after comparisons.
    func allProducts() async throws -> [ProductRow] {
        var rows: [ProductRow] = []
        var request = PageRequest(pageSize: PageRequest.maximumPageSize)
        for _ in 0..<1000 {
            let page = try await store.products(ProductFilter(), page: request)
            rows += page.rows
            guard let next = page.nextCursor else { break }
            request.cursor = next
        }
        return rows
    }

    func allFilms() async throws -> [FilmRow] {
        try await store.films(FilmFilter(), page: PageRequest(pageSize: PageRequest.maximumPageSize)).rows
    }
}
