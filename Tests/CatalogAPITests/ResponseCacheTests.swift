import CatalogModel
import CatalogStore
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CatalogAPI

@Suite("Response cache")
struct ResponseCacheTests {
    @Test func theOldestEntriesGoFirstOnceTheBudgetIsReached() {
        let cache = ResponseCache(byteBudget: 100)
        cache.store(ByteBuffer(repeating: 1, count: 20), for: "a", family: "f", version: 1)
        cache.store(ByteBuffer(repeating: 2, count: 20), for: "b", family: "f", version: 1)
        cache.store(ByteBuffer(repeating: 3, count: 20), for: "c", family: "f", version: 1)
        #expect(cache.body(for: "a")?.readableBytes == 20)
        for index in 0..<5 { cache.store(ByteBuffer(repeating: 4, count: 20), for: "d\(index)", family: "f", version: 1) }
        #expect(cache.body(for: "a") == nil)
        #expect(cache.body(for: "b") == nil)
        #expect(cache.body(for: "d4")?.readableBytes == 20)
        cache.store(ByteBuffer(repeating: 5, count: 60), for: "too big for a quarter of the budget", family: "f", version: 1)
        #expect(cache.body(for: "too big for a quarter of the budget") == nil)
    }

    @Test func aNewerVersionDropsTheOlderEntriesOfItsFamilyAtOnce() {
        let cache = ResponseCache(byteBudget: 1000)
        cache.store(ByteBuffer(repeating: 1, count: 10), for: "products-1-a", family: "products", version: 1)
        cache.store(ByteBuffer(repeating: 1, count: 10), for: "products-1-b", family: "products", version: 1)
        cache.store(ByteBuffer(repeating: 1, count: 10), for: "films-3-a", family: "films", version: 3)
        cache.store(ByteBuffer(repeating: 2, count: 10), for: "products-2-a", family: "products", version: 2)
        #expect(cache.body(for: "products-1-a") == nil)
        #expect(cache.body(for: "products-1-b") == nil)
        #expect(cache.body(for: "films-3-a")?.readableBytes == 10)
        #expect(cache.body(for: "products-2-a")?.readableBytes == 10)
        // A slow render of an older version, arriving after a newer one, is not kept.
        cache.store(ByteBuffer(repeating: 1, count: 10), for: "products-1-c", family: "products", version: 1)
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
}
