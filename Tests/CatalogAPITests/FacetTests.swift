import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CatalogAPI

@Suite("Facets: the counts of categories and brands among the products a list selects")
struct FacetTests {
    /// Lamps (4), desks (2) and a chair; Acme (3), Zeta (3) and one without a brand.
    static func seed(_ store: any CatalogStore) async throws {
        let rows: [(String, String, String?, String)] = [
            ("L1", "lamp", "Acme", "desk lamp"), ("L2", "lamp", "Acme", "floor lamp"), ("L3", "lamp", "Zeta", "desk lamp"),
            ("L4", "lamp", nil, "wall lamp"), ("D1", "desk", "Zeta", "oak desk"), ("D2", "desk", "Acme", "pine desk"),
            ("C1", "chair", "Zeta", "desk chair"),
        ]
        let products = try rows.map { key, category, brand, name in
            Product(serialCode: key, name: name, description: "", category: category, brand: brand, price: try Price(parsing: "10"), stock: 1)
        }
        _ = try await store.upsertProducts(products, author: "api")
    }

    /// `[value: count]` of one facet, in the order served.
    static func values(_ list: JSONValue, _ facet: String) -> [String] {
        array(list["facets"]?[facet]).map { "\(string($0["value"]) ?? "?")=\(integer($0["count"]) ?? -1)" }
    }

    @Test(arguments: StoreBackend.available) func facetsCountTheSelectedProductsLargestFirstAndTiesByValue(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store)
            let all = try json(try await get(client, "/products?facets=category,brand"))
            #expect(Self.values(all, "category") == ["lamp=4", "desk=2", "chair=1"])
            #expect(Self.values(all, "brand") == ["Acme=3", "Zeta=3"])
            #expect(integer(all["count"]) == 7)

            let zeta = try json(try await get(client, "/products?brand=Zeta&facets=category"))
            #expect(Self.values(zeta, "category") == ["chair=1", "desk=1", "lamp=1"])
            #expect(all["facets"]?["brand"] != nil && zeta["facets"]?["brand"] == nil)

            let searched = try json(try await get(client, "/products?search=desk&facets=category,brand&facet_size=1"))
            #expect(Self.values(searched, "category") == ["desk=2"])
            #expect(Self.values(searched, "brand") == ["Zeta=3"])

            let plain = try json(try await get(client, "/products"))
            #expect(plain["facets"] == nil)
        }
    }

    @Test(arguments: StoreBackend.available) func eachValueLinksToTheListNarrowedByIt(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store)
            let first = try json(try await get(client, "/products?brand=Acme&category=desk&page_size=1&facets=category"))
            #expect(Self.values(first, "category") == ["desk=1"])
            let acme = try json(try await get(client, "/products?brand=Acme&page_size=1&facets=category"))
            let cursor = try #require(string(acme["next"])?.components(separatedBy: "cursor=").last)
            let paged = try json(try await get(client, "/products?brand=Acme&page_size=1&facets=category&cursor=\(cursor)"))
            #expect(Self.values(paged, "category") == ["lamp=2", "desk=1"])
            // The link replaces the category and leaves the cursor out: the narrowed list from its first page.
            let link = try #require(string(array(first["facets"]?["category"]).first?["url"]))
            #expect(link.hasSuffix("/products?brand=Acme&page_size=1&facets=category&category=desk"), "\(link)")
            let lampLink = try #require(string(array(paged["facets"]?["category"]).first?["url"]))
            #expect(lampLink.hasSuffix("/products?brand=Acme&page_size=1&facets=category&category=lamp"), "\(lampLink)")
            let path = try #require(lampLink.range(of: "/products?").map { String(lampLink[$0.lowerBound...]) })
            let narrowed = try json(try await get(client, path))
            #expect(integer(narrowed["count"]) == 2)
        }
    }

    @Test(arguments: StoreBackend.available) func anUnknownFacetOrABadSizeIs400NamingIt(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, _ in
            for (uri, parameter, mentions) in [
                ("/products?facets=category,colour", "facets", "colour"), ("/products?facets=category,", "facets", "''"),
                ("/products?facets=brand&facet_size=0", "facet_size", "0"), ("/products?facet_size=51", "facet_size", "51"),
            ] {
                let response = try await get(client, uri)
                #expect(response.status == .badRequest, "\(uri)")
                let problem = try json(response)
                #expect(string(problem["parameter"]) == parameter, "\(uri)")
                #expect(string(problem["detail"])?.contains(mentions) == true, "\(uri): \(string(problem["detail"]) ?? "")")
            }
        }
    }

    /// The service reads the sets of the words most products hold at start-up, and again once a write has moved the
    /// products version and the products have stayed unchanged for its quiet period: a search of such a word is then
    /// counted and faceted from sets of the version it reads. (The category is searched too: desks match "desk".)
    @Test(arguments: StoreBackend.available) func theSetsOfFrequentWordsFollowTheWrites(_ backend: StoreBackend) async throws {
        var harness = WriteHarness(backend: backend)
        harness.setup = .live
        // The client's connection outlives the waits below.
        harness.configuration.idleTimeout = .seconds(120)
        try await harness.run { client, components in
            let store = components.store
            /// Waits, bounded, until the sets are of the products version reads see: the quiet period, then a rest of
            /// four times the last refresh, which on a machine busy with other suites can take several seconds.
            func setsCaughtUp() async throws -> Bool {
                for _ in 0..<600 {
                    let products = try await store.currentVersions().products
                    if store.frequentTermsVersion == products { return true }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return false
            }
            try await Self.seed(store)
            #expect(try await setsCaughtUp())
            let searched = try json(try await get(client, "/products?search=desk%20&facets=category,brand"))
            #expect(integer(searched["count"]) == 5)
            #expect(Self.values(searched, "category") == ["desk=2", "lamp=2", "chair=1"])
            #expect(Self.values(searched, "brand") == ["Zeta=3", "Acme=2"])

            _ = try await store.upsertProducts(
                [Product(serialCode: "D3", name: "standing desk", description: "", category: "desk", brand: "Acme", price: try Price(parsing: "10"))],
                author: "api")
            #expect(try await setsCaughtUp())
            let after = try json(try await get(client, "/products?search=desk%20&facets=category,brand"))
            #expect(integer(after["count"]) == 6)
            #expect(Self.values(after, "category") == ["desk=3", "lamp=2", "chair=1"])
            #expect(Self.values(after, "brand") == ["Acme=3", "Zeta=3"])
        }
    }

    /// Under writes that never stop for the quiet period, the sets are brought forward by the changes since them
    /// every second (`FrequentTerms.advanced`), not left at their version until the writes stop or a minute passes.
    @Test(arguments: StoreBackend.available) func theSetsAreBroughtForwardWhileWritesGoOn(_ backend: StoreBackend) async throws {
        var harness = WriteHarness(backend: backend)
        harness.setup = .live
        try await harness.run { _, components in
            let store = components.store
            try await Self.seed(store)
            for _ in 0..<600 where store.frequentTermsVersion == nil { try await Task.sleep(for: .milliseconds(100)) }
            let first = try #require(store.frequentTermsVersion)
            var seen: Set<Int64> = []
            // 6 s of a write every 200 ms: never 2 s without one.
            for write in 0..<30 {
                _ = try await store.upsertProducts(
                    [Product(serialCode: "W\(write % 3)", name: "desk \(write)", category: "desk", brand: "Acme", price: try Price(parsing: "10"))],
                    author: "api")
                if let version = store.frequentTermsVersion, version > first { seen.insert(version) }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(seen.count >= 2, "the sets' versions while the writes went on: \(seen.sorted())")
            let searched = try await store.products(ProductFilter(search: "desk "), page: PageRequest(pageSize: 1))
            #expect(searched.count == 8)
        }
    }
}
