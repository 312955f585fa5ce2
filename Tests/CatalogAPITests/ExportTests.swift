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

/// The objects of an NDJSON body, one a line.
func ndjson(_ response: TestResponse) throws -> [JSONValue] {
    try String(buffer: response.body).split(separator: "\n").map { try JSONParser.parse(Array($0.utf8)) }
}

/// Every row of a list, walking its `next` links.
func walkedList(_ client: some TestClientProtocol, _ uri: String) async throws -> [JSONValue] {
    var rows: [JSONValue] = []
    var next: String? = uri
    var pages = 0
    while let path = next, pages < 1_000 {
        let page = try json(try await get(client, path))
        rows += array(page["results"])
        next = string(page["next"]).map(pathAndQuery)
        pages += 1
    }
    return rows
}

/// The products an NDJSON export of the list holds, by key.
func exportedProducts(_ response: TestResponse) throws -> [String: JSONValue] {
    var products: [String: JSONValue] = [:]
    for product in try ndjson(response) { products[string(product["serial_code"]) ?? ""] = product }
    return products
}

@Suite("Exports of whole lists")
struct ExportTests {
    static func harness(_ backend: StoreBackend, batchSize: Int = 40) -> WriteHarness {
        var harness = WriteHarness(backend: backend)
        harness.configuration.exportBatchSize = batchSize
        return harness
    }

    @Test(arguments: StoreBackend.available) func anExportHoldsEveryRowTheListSelectsInItsOrder(_ backend: StoreBackend) async throws {
        try await Self.harness(backend).run { client, components in
            try await seedCatalogue(components.store, products: 250)
            let seq = try await components.store.versions().lastSeq
            for query in [
                "", "ordering=-price", "category=c1&ordering=name", "search=lamp", "search=blue%20lamp&ordering=-relevance",
                "search=lamp&ordering=price", "in_stock=true",
            ] {
                let exported = try await get(client, "/products?\(query)&format=ndjson")
                #expect(exported.status == .ok, "\(query): \(String(buffer: exported.body))")
                #expect(exported.headers[.contentType] == "application/x-ndjson")
                #expect(exported.headers[.catalogSeq] == String(seq))
                #expect(exported.headers[.contentDisposition] == #"attachment; filename="products.ndjson""#)
                let listed = try await walkedList(client, "/products?\(query)&page_size=100")
                #expect(!listed.isEmpty)
                #expect(try ndjson(exported) == listed, "\(query)")
                // The same rows by Accept, and as CSV: a header and a row each.
                let accepted = try await get(client, "/products?\(query)", headers: [.accept: "application/x-ndjson"])
                #expect(try ndjson(accepted) == listed)
                let csv = try await get(client, "/products?\(query)&format=csv")
                #expect(csv.headers[.contentType] == "text/csv; charset=utf-8; header=present")
                let lines = String(buffer: csv.body).components(separatedBy: "\r\n").filter { !$0.isEmpty }
                #expect(lines.first == Representations.productCSVHeader.joined(separator: ","))
                #expect(lines.count == listed.count + 1)
                #expect(lines.dropFirst().map { $0.prefix { $0 != "," } } == listed.map { string($0["serial_code"]).map { Substring($0) } })
            }
            // Films and categories too: a film's links as arrays, and as counts in CSV.
            let films = try await get(client, "/films?format=ndjson")
            #expect(try ndjson(films) == (try await walkedList(client, "/films")))
            let filmCSV = String(buffer: try await get(client, "/films?format=csv&ordering=episode_id").body).components(separatedBy: "\r\n")
            #expect(filmCSV[0] == Representations.filmCSVHeader.joined(separator: ","))
            #expect(filmCSV[1].hasPrefix("4,A New Hope,,George Lucas,,1977-05-25,3,1,0,0,0,"))
            let categories = try await get(client, "/categories?format=ndjson")
            #expect(try ndjson(categories) == (try await walkedList(client, "/categories")))
            let categoryCSV = String(buffer: try await get(client, "/categories?format=csv").body).components(separatedBy: "\r\n")
            #expect(categoryCSV[0] == "name,product_count,url,products")
            #expect(categoryCSV[1].hasPrefix("c0,84,"))
        }
    }

    @Test(arguments: StoreBackend.available) func csvQuotesTheFieldsThatHoldCommasQuotesOrLineBreaks(_ backend: StoreBackend) async throws {
        try await Self.harness(backend).run { client, components in
            let name = "Lamp, \"big\"\nwith a second line"
            _ = try await components.store.upsertProducts(
                [Product(serialCode: "Q1", name: name, category: "lighting", brand: "Acme", price: try Price(parsing: "2.50"))], author: "api")
            let csv = String(buffer: try await get(client, "/products?format=csv").body)
            #expect(csv.contains("\r\nQ1,\"Lamp, \"\"big\"\"\nwith a second line\",,lighting,Acme,2.50,0,"))
            #expect(csv.hasSuffix(",,api\r\n"))
        }
    }

    @Test(arguments: StoreBackend.available) func pagingAnExportIsA400NamingTheParameter(_ backend: StoreBackend) async throws {
        try await Self.harness(backend).run { client, components in
            try await seedCatalogue(components.store)
            for (query, parameter) in [("cursor=abc", "cursor"), ("page_size=10", "page_size")] {
                let refused = try await get(client, "/products?format=ndjson&\(query)")
                #expect(refused.status == .badRequest)
                #expect(refused.headers[.contentType] == "application/problem+json")
                #expect(try json(refused)["parameter"] == .string(parameter))
            }
            let badOrdering = try await get(client, "/products?format=csv&ordering=colour")
            #expect(badOrdering.status == .badRequest)
            #expect(try json(badOrdering)["parameter"] == .string("ordering"))
            // Only a list is exported.
            let item = try await get(client, "/products/P001?format=csv")
            #expect(item.status == .badRequest)
            #expect(try json(item)["parameter"] == .string("format"))
            let asked = try await get(client, "/products/P001", headers: [.accept: "text/csv"])
            #expect(asked.headers[.contentType] == "application/json")
        }
    }

    @Test(arguments: StoreBackend.available) func aListLinksToItsExportsAndItsPageToo(_ backend: StoreBackend) async throws {
        try await Self.harness(backend).run { client, components in
            try await seedCatalogue(components.store)
            let page = try json(try await get(client, "/products?category=c1&page_size=5&ordering=name"))
            let links = page["export"]
            #expect(links.map { string($0["csv"]).map(pathAndQuery) } == "/products?category=c1&ordering=name&format=csv")
            #expect(links.map { string($0["ndjson"]).map(pathAndQuery) } == "/products?category=c1&ordering=name&format=ndjson")
            let html = String(buffer: try await get(client, "/films?search=hope", headers: [.accept: "text/html"]).body)
            #expect(html.contains(#"<a href="/films?search=hope&amp;format=csv">CSV</a>"#))
            #expect(html.contains(#"<a href="/films?search=hope&amp;format=ndjson">NDJSON</a>"#))
        }
    }

    /// The promise of the header: an export taken while a client writes and an import runs, then the changes after its
    /// `X-Catalog-Seq` applied to it, is the catalogue, row for row; and it holds exactly what the history up to that seq
    /// leaves.
    @Test(arguments: StoreBackend.available) func theChangesAfterAnExportsSeqMakeItTheCatalogue(_ backend: StoreBackend) async throws {
        let upstream = FixtureUpstream(catalog: FixtureCatalog(films: 0, products: 600))
        let upstreamPort = try await upstream.start(port: 0)
        var harness = Self.harness(backend, batchSize: 25)
        harness.configuration.feeds = FeedLocations(films: "", products: "http://127.0.0.1:\(upstreamPort)/products", productPageSize: 50)
        try await harness.run { client, components in
            let store = components.store
            try await seedCatalogue(store, products: 400)
            let writer = Task {
                for round in 0..<150 {
                    let key = String(format: "P%03d", (round * 7) % 400)
                    if round % 5 == 0 {
                        _ = try await store.deleteProduct(serialCode: key, author: "api")
                    } else {
                        let price = try Price(parsing: "\(round + 1).00")
                        let written = [
                            Product(serialCode: key, name: "Written \(round)", category: "c\(round % 3)", price: price),
                            Product(serialCode: "W\(round)", name: "New \(round)", category: "c1", price: price),
                        ]
                        _ = try await store.upsertProducts(written, author: "api")
                    }
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            let (_, imported) = try await components.importer.start(.products)
            var exports: [TestResponse] = []
            for _ in 0..<3 {
                exports.append(try await get(client, "/products?format=ndjson&ordering=-price"))
                try await Task.sleep(for: .milliseconds(20))
            }
            try await writer.value
            #expect(await imported.value.status == .succeeded)
            let final = try exportedProducts(try await get(client, "/products?format=ndjson"))
            var seqs: Set<Int64> = []
            for export in exports {
                let seq = try #require(export.headers[.catalogSeq].flatMap { Int64($0) })
                seqs.insert(seq)
                var copy = try exportedProducts(export)
                // What the history up to the seq leaves: the keys of the export, no more and no fewer.
                var present: Set<String> = []
                for change in try await store.changes(since: 0, limit: 100_000, entity: .product).changes where change.seq <= seq {
                    if change.op == .delete { present.remove(change.key) } else { present.insert(change.key) }
                }
                let exportedKeys = Set(copy.keys)
                #expect(
                    exportedKeys == present,
                    "at seq \(seq): \(exportedKeys.subtracting(present).sorted()) exported and gone, \(present.subtracting(exportedKeys).sorted()) left out"
                )
                // The hand-over: each change after the seq, applied as a follower of the feed applies it.
                var since = seq
                var pending = 1
                while pending > 0 {
                    let page = try json(try await get(client, "/changes?since=\(since)&entity=product&limit=500"))
                    for change in array(page["results"]) {
                        let key = string(change["key"]) ?? ""
                        if change["op"] == .string("delete") {
                            copy[key] = nil
                        } else {
                            copy[key] = try json(try await get(client, "/products/\(PathComponent.encode(key))"))
                        }
                    }
                    since = Int64(integer(page["last_seq"]) ?? 0)
                    pending = integer(page["pending"]) ?? 0
                }
                #expect(copy == final, "at seq \(seq): \(copy.count) against \(final.count)")
            }
            #expect(seqs.count > 1, "every export saw the same seq: the writes never fell during one")
        }
        await upstream.stop()
    }
}
