import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import CatalogAPI

@Suite("Response cache")
struct ResponseCacheTests {
    @Test func theOldestEntriesGoFirstOnceTheBudgetIsReached() {
        let cache = ResponseCache(byteBudget: 100)
        cache.store(ByteBuffer(repeating: 1, count: 20), for: "a", subject: 1, family: "f", version: 1)
        cache.store(ByteBuffer(repeating: 2, count: 20), for: "b", subject: 2, family: "f", version: 1)
        cache.store(ByteBuffer(repeating: 3, count: 20), for: "c", subject: 3, family: "f", version: 1)
        #expect(cache.body(for: "a")?.readableBytes == 20)
        #expect(cache.holds(subject: 1))
        for index in 0..<5 {
            cache.store(ByteBuffer(repeating: 4, count: 20), for: "d\(index)", subject: UInt64(10 + index), family: "f", version: 1)
        }
        #expect(cache.body(for: "a") == nil)
        #expect(cache.body(for: "b") == nil)
        #expect(cache.body(for: "d4")?.readableBytes == 20)
        #expect(!cache.holds(subject: 1) && !cache.holds(subject: 3) && cache.holds(subject: 14))
        cache.store(ByteBuffer(repeating: 5, count: 60), for: "too big for a quarter of the budget", subject: 20, family: "f", version: 1)
        #expect(cache.body(for: "too big for a quarter of the budget") == nil)
        #expect(!cache.holds(subject: 20))
    }

    @Test func aNewerVersionDropsTheOlderEntriesOfItsFamilyAtOnce() {
        let cache = ResponseCache(byteBudget: 1000)
        cache.store(ByteBuffer(repeating: 1, count: 10), for: "products-1-a", subject: 1, family: "products", version: 1)
        cache.store(ByteBuffer(repeating: 1, count: 10), for: "products-1-b", subject: 2, family: "products", version: 1)
        cache.store(ByteBuffer(repeating: 1, count: 10), for: "films-3-a", subject: 3, family: "films", version: 3)
        cache.store(ByteBuffer(repeating: 2, count: 10), for: "products-2-a", subject: 1, family: "products", version: 2)
        #expect(cache.body(for: "products-1-a") == nil)
        #expect(cache.body(for: "products-1-b") == nil)
        #expect(cache.body(for: "films-3-a")?.readableBytes == 10)
        #expect(cache.body(for: "products-2-a")?.readableBytes == 10)
        // The response of subject 1 is held at its newer version; subject 2's is gone.
        #expect(cache.holds(subject: 1) && !cache.holds(subject: 2) && cache.holds(subject: 3))
        // A slow render of an older version, arriving after a newer one, is not kept.
        cache.store(ByteBuffer(repeating: 1, count: 10), for: "products-1-c", subject: 4, family: "products", version: 1)
        #expect(!cache.holds(subject: 4))
        #expect(cache.body(for: "products-1-c") == nil)
        #expect(cache.body(for: "products-2-a")?.readableBytes == 10)
    }

    @Test func aCachedPageIsNeverServedAfterTheDataChanged() async throws {
        let harness = WriteHarness()
        try await harness.run { client, components in
            try await seedCatalogue(components.store)
            let first = try await client.execute(uri: "/products/P001", method: .get)
            let again = try await client.execute(uri: "/products/P001", method: .get)
            #expect(again.body == first.body)
            #expect(again.headers[.eTag] == first.headers[.eTag])
            // Another process renames the product and moves the version, as the store's own writes do.
            let other = try DatabaseQueue(path: harness.databasePath)
            try await other.write { db in
                try db.execute(sql: "UPDATE products SET name = 'Renamed elsewhere' WHERE serial_code = 'P001'")
                try db.execute(sql: "UPDATE versions SET version = version + 1 WHERE name = 'products'")
            }
            let changed = try await client.execute(uri: "/products/P001", method: .get)
            #expect(String(buffer: changed.body).contains("Renamed elsewhere"))
            #expect(changed.headers[.eTag] != first.headers[.eTag])
        }
    }

    /// The versions a PostgreSQL replica reads before a GET, as its store logs them (trace), for each request in turn.
    private func versionChecks(cacheBytes: Int, _ requests: [(uri: String, headers: HTTPFields)]) async throws -> [Int] {
        let lines = RecordedLines()
        var logger = Logger(label: "catalogd-tests") { _ in RecordingLogHandler(lines: lines) }
        logger.logLevel = .trace
        let testStore = try await TestStore.open(.postgres, logger: logger)
        defer { testStore.remove() }
        try await seedCatalogue(testStore.store)
        var configuration = ServiceConfiguration()
        configuration.responseCacheBytes = cacheBytes
        // The sets' service asks for the versions every second in the background; one asked while a request ran
        // would be counted as that request's.
        configuration.frequentTerms = nil
        let (application, _) = try await buildApplication(configuration, store: testStore.store, logger: Logger(label: "catalogd-tests"))
        return try await application.test(.router) { client in
            var checks: [Int] = []
            for request in requests {
                lines.removeAll()
                let response = try await client.execute(uri: request.uri, method: .get, headers: request.headers)
                #expect(response.status == .ok)
                checks.append(lines.all.filter { $0.contains("reading the versions for a check") }.count)
            }
            return checks
        }
    }

    /// A GET whose response the cache has never held, without `If-None-Match`, could be answered by nothing but its
    /// own read: it does not ask for the versions first (on PostgreSQL, a round trip).
    @Test func onlyAGetTheVersionsCanAnswerAsksForThemFirst() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let unknownTag: HTTPFields = [.ifNoneMatch: "\"products-0-0\""]
        let cached = try await versionChecks(
            cacheBytes: ResponseCache.defaultByteBudget,
            [("/products?page_size=3", [:]), ("/products?page_size=3", [:]), ("/products?page_size=4", unknownTag), ("/products/P001", [:])])
        #expect(cached == [0, 1, 1, 0])
        let uncached = try await versionChecks(
            cacheBytes: 0, [("/products?page_size=3", [:]), ("/products?page_size=3", [:]), ("/products?page_size=4", unknownTag)])
        #expect(uncached == [0, 0, 1])
    }
}
