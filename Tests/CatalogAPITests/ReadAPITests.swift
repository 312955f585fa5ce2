import CatalogImport
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

/// Seeds a store with `products` products over three categories and two films.
func seedCatalogue(_ store: any CatalogStore, products: Int = 30) async throws {
    let rows = try (0..<products).map { index in
        Product(
            serialCode: String(format: "P%03d", index), name: "Product \(index % 7)", description: index % 4 == 0 ? "blue lamp" : "chair",
            category: "c\(index % 3)", brand: index % 2 == 0 ? "Acme" : "",
            price: try Price(parsing: "\(10 + index % 5).\(index % 2 == 0 ? "90" : "25")"),
            stock: index % 4)
    }
    _ = try await store.upsertProducts(rows, author: "api")
    _ = try await store.upsertFilms(
        [
            Film(
                episodeID: 4, title: "A New Hope", director: "George Lucas", releaseDate: "1977-05-25", sourceURL: "https://swapi.dev/api/films/1/",
                links: [.characters: ["c1", "c2", "c3"], .planets: ["p1"]]),
            Film(episodeID: 5, title: "The Empire Strikes Back", director: "Irvin Kershner", releaseDate: "1980-05-17", links: [.species: ["s1"]]),
        ], author: "api")
}

func get(_ client: some TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
    try await client.execute(uri: uri, method: .get, headers: headers)
}

/// The path and query of an absolute URL from a `next` or `url` field.
func pathAndQuery(_ url: String) -> String {
    guard let components = URLComponents(string: url) else { return url }
    return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
}

func array(_ value: JSONValue?) -> [JSONValue] {
    if case .array(let elements)? = value { return elements }
    return []
}

func string(_ value: JSONValue?) -> String? {
    if case .string(let text)? = value { return text }
    return nil
}

@Suite("Reading the catalogue")
struct ReadAPITests {
    @Test(arguments: StoreBackend.available) func filmsCarryEveryFieldLinksAndDerivedCounts(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store)
            let response = try await get(client, "/films/4/")
            #expect(response.status == .ok)
            let film = try json(response)
            #expect(film["title"] == .string("A New Hope"))
            #expect(integer(film["character_count"]) == 3)
            #expect(integer(film["planet_count"]) == 1)
            #expect(integer(film["species_count"]) == 0)
            #expect(array(film["characters"]) == [.string("c1"), .string("c2"), .string("c3")])
            #expect(string(film["url"])?.hasSuffix("/films/4/") == true)
            #expect(film["source_url"] == .string("https://swapi.dev/api/films/1/"))
            for field in ["opening_crawl", "producer", "release_date", "created", "edited", "starships", "vehicles", "vehicle_count"] {
                #expect(film[field] != nil, "missing \(field)")
            }
        }
    }

    @Test func keysArePercentEncodedInLinksOnlyWhereTheyMustBe() {
        #expect(PathComponent.encode("SKU-000123_a.b~c") == "SKU-000123_a.b~c")
        #expect(PathComponent.encode("a b/ü%") == "a%20b%2F%C3%BC%25")
        #expect(PathComponent.encode("") == "")
    }

    @Test func requestDurationsAreLoggedInMilliseconds() {
        let format = RequestLogMiddleware<BasicRequestContext>.milliseconds
        #expect(format(.microseconds(12)) == "0.01 ms")
        #expect(format(.microseconds(1_254)) == "1.25 ms")
        #expect(format(.milliseconds(90)) == "90.00 ms")
        #expect(format(.seconds(12) + .microseconds(345_678)) == "12345.68 ms")
    }

    @Test(arguments: StoreBackend.available) func aPublicURLIsUsedForLinksWhenConfigured(_ backend: StoreBackend) async throws {
        var harness = WriteHarness(backend: backend)
        harness.configuration.publicURL = "https://catalog.example.com/"
        try await harness.run { client, components in
            try await seedCatalogue(components.store)
            let list = try json(try await get(client, "/products?page_size=2"))
            #expect(string(array(list["results"]).first?["url"]) == "https://catalog.example.com/products/P000/")
            #expect(string(list["next"])?.hasPrefix("https://catalog.example.com/products?page_size=2&cursor=") == true)
        }
    }

    @Test(arguments: StoreBackend.available) func crossOriginAccessIsOffByDefaultAndGivenOnlyToConfiguredOrigins(_ backend: StoreBackend) async throws
    {
        let fromApp: HTTPFields = [.origin: "https://app.example"]
        try await WriteHarness(backend: backend).run { client, _ in
            let response = try await client.execute(uri: "/films", method: .get, headers: fromApp)
            #expect(response.status == .ok)
            #expect(response.headers[.accessControlAllowOrigin] == nil)
        }
        var harness = WriteHarness(backend: backend)
        harness.configuration.corsOrigins = ["https://app.example"]
        try await harness.run { client, _ in
            let allowed = try await client.execute(uri: "/films", method: .get, headers: fromApp)
            #expect(allowed.headers[.accessControlAllowOrigin] == "https://app.example")
            #expect(allowed.headers[.accessControlExposeHeaders]?.contains("ETag") == true)
            let preflight = try await client.execute(
                uri: "/products/X", method: .options,
                headers: [.origin: "https://app.example", .accessControlRequestMethod: "PUT"])
            #expect(preflight.status == .noContent || preflight.status == .ok)
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("PUT") == true)
            let other = try await client.execute(uri: "/films", method: .get, headers: [.origin: "https://elsewhere.example"])
            #expect(other.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test(arguments: StoreBackend.available) func aSearchLongerThanTheLimitIs400NamingIt(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store)
            let longest = String(repeating: "%25", count: SearchText.maximumBytes)
            #expect(try await get(client, "/products?search=\(longest)").status == .ok)
            for path in ["/products", "/films", "/categories"] {
                let refused = try await get(client, "\(path)?search=\(longest)x")
                #expect(refused.status == .badRequest)
                #expect(string(try json(refused)["parameter"]) == "search")
            }
        }
    }

    @Test(arguments: StoreBackend.available) func anEmptyValueIsTheParameterLeftOutWhateverItsType(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store)
            // As a form submits a field left blank, and as the page reads it before it redirects to the URL without it.
            for (path, without) in [
                ("/products?page_size=&min_price=&max_price=&in_stock=&ordering=&facets=&facet_size=&cursor=&category=&search=", "/products"),
                ("/products?page_size=&page_size=3&ordering=&ordering=-price", "/products?page_size=3&ordering=-price"),
                ("/products?format=", "/products"), ("/films?page_size=&ordering=&director=", "/films"),
                ("/categories?page_size=&cursor=", "/categories"), ("/imports?ordering=", "/imports"),
                ("/changes?limit=&timeout=&entity=&feed=&since=", "/changes"),
            ] {
                let empty = try await get(client, path)
                let plain = try await get(client, without)
                let results = (empty: try json(empty)["results"], plain: try json(plain)["results"])
                #expect(empty.status == .ok, "\(path)")
                #expect(results.empty == results.plain, "\(path)")
            }
            // A number is digits alone: a page reads a form's `+` as a space, so `+5` could not mean 5 to both.
            for (path, parameter) in [
                ("/products?page_size=%2B5", "page_size"), ("/products?facet_size=%2B5", "facet_size"), ("/products?min_price=1e2", "min_price"),
                ("/changes?limit=%2B5", "limit"), ("/changes?since=%2B5", "since"),
            ] {
                let refused = try await get(client, path)
                #expect(refused.status == .badRequest, "\(path)")
                #expect(string(try json(refused)["parameter"]) == parameter)
            }
        }
    }

    @Test(arguments: StoreBackend.available) func ifNoneMatchStarNeverHidesABadParameter(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store)
            let any: HTTPFields = [.ifNoneMatch: "*"]
            for path in ["/products?ordering=bogus", "/films?page_size=0", "/imports?ordering=bogus"] {
                #expect(try await get(client, path, headers: any).status == .badRequest, "\(path)")
            }
            #expect(try await get(client, "/categories?cursor=garbage", headers: any).status == .notFound)
            #expect(try await get(client, "/products?page_size=3", headers: any).status == .notModified)
            #expect(try await get(client, "/products/P404", headers: any).status == .notFound)
        }
    }

    @Test(arguments: StoreBackend.available) func aKnownPathAskedWithAnotherMethodIs405WithAllow(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, _ in
            let trace = try await client.execute(uri: "/films", method: .init("TRACE")!, headers: [:])
            #expect(trace.status == .methodNotAllowed)
            #expect(trace.headers[.allow] == "GET, HEAD")
            #expect(trace.headers[.contentType] == "application/problem+json")
            let patch = try await client.execute(uri: "/products/P1/", method: .patch, headers: authorized)
            #expect(patch.status == .methodNotAllowed)
            #expect(patch.headers[.allow] == "GET, HEAD, PUT, DELETE")
            #expect(try await client.execute(uri: "/nowhere", method: .patch, headers: [:]).status == .notFound)
            #expect(try await client.execute(uri: "/films/1/extra", method: .get, headers: [:]).status == .notFound)
        }
    }

    @Test(arguments: StoreBackend.available) func everyKnownPathNamesTheMethodsItTakesInAllow(_ backend: StoreBackend) async throws {
        let expected = [
            "/": "GET, HEAD", "/films": "GET, HEAD", "/films/4": "GET, HEAD, PUT, DELETE", "/products": "GET, HEAD, POST",
            "/products/P1": "GET, HEAD, PUT, DELETE", "/categories": "GET, HEAD", "/categories/c0": "GET, HEAD", "/changes": "GET, HEAD",
            "/imports": "GET, HEAD, POST", "/imports/1": "GET, HEAD", "/healthz": "GET, HEAD", "/readyz": "GET, HEAD", "/metrics": "GET, HEAD",
            "/openapi.yaml": "GET, HEAD",
        ]
        try await WriteHarness(backend: backend).run { client, _ in
            for (path, allow) in expected {
                let response = try await client.execute(uri: path, method: .init("TRACE")!, headers: [:])
                let (status, header) = (response.status, response.headers[.allow])
                #expect(status == .methodNotAllowed, "TRACE \(path)")
                #expect(header == allow, "TRACE \(path)")
            }
        }
    }

    @Test(arguments: StoreBackend.available) func theRootLinksEveryResourceInTheREADMEsOrder(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, _ in
            let body = String(buffer: try await get(client, "/").body)
            // The links hold no comma: each member is `"name":"url"`.
            let names = body.split(separator: ",").map { String($0.drop { $0 != "\"" }.dropFirst().prefix { $0 != "\"" }) }
            #expect(names == ["films", "products", "categories", "changes", "imports"])
        }
    }

    @Test(arguments: StoreBackend.available) func pricesAreServedExactlyAsWritten(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store)
            let body = String(buffer: try await get(client, "/products/P000").body)
            #expect(body.contains(#""price":10.90"#))
        }
    }

    @Test(arguments: StoreBackend.available) func theEnvelopeAndTrailingSlashesWorkOnEveryList(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store)
            for path in ["/films", "/films/", "/products", "/products/", "/categories", "/categories/", "/imports", "/imports/"] {
                let response = try await get(client, path)
                #expect(response.status == .ok, "\(path)")
                let envelope = try json(response)
                for field in ["count", "next", "previous", "results"] { #expect(envelope[field] != nil, "\(path) lacks \(field)") }
            }
            let categories = try json(try await get(client, "/categories"))
            #expect(array(categories["results"]).map { integer($0["product_count"]) } == [10, 10, 10])
            let one = try json(try await get(client, "/categories/c1/"))
            #expect(integer(one["product_count"]) == 10)
        }
    }

    @Test(arguments: StoreBackend.available, ["serial_code", "-price", "name"])
    func walkingNextLinksGivesEveryRowOnceAndPreviousWalksBack(backend: StoreBackend, ordering: String) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store, products: 60)
            var uri = "/products?ordering=\(ordering)&page_size=7"
            var seen: [String] = []
            var pages: [String] = []
            for _ in 0..<20 {
                let page = try json(try await get(client, uri))
                #expect(integer(page["count"]) == 60)
                pages.append(uri)
                seen += array(page["results"]).compactMap { string($0["serial_code"]) }
                guard let next = string(page["next"]) else { break }
                uri = pathAndQuery(next)
            }
            #expect(seen.count == 60)
            #expect(Set(seen).count == 60)
            var back: [String] = []
            var previous = string(try json(try await get(client, uri))["previous"])
            for _ in 0..<20 {
                guard let link = previous else { break }
                let page = try json(try await get(client, pathAndQuery(link)))
                back = array(page["results"]).compactMap { string($0["serial_code"]) } + back
                previous = string(page["previous"])
            }
            #expect(back == Array(seen.prefix(back.count)))
            #expect(back.count == 60 - (seen.count - (pages.count - 1) * 7))
        }
    }

    /// A link keeps every parameter the client sent, in its order, and replaces only the cursor.
    @Test(arguments: StoreBackend.available) func linksKeepTheClientsParametersAndReplaceOnlyTheCursor(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store, products: 9)
            let first = try json(try await get(client, "/products?cursorish=1&ordering=-price&page_size=2"))
            let next = try #require(string(first["next"]))
            #expect(next.hasPrefix("http://localhost/products?cursorish=1&ordering=-price&page_size=2&cursor="))
            let second = try json(try await get(client, "\(pathAndQuery(next))&cursor"))
            let previous = try #require(string(second["previous"]))
            #expect(previous.hasPrefix("http://localhost/products?cursorish=1&ordering=-price&page_size=2&cursor="))
            #expect(previous.components(separatedBy: "cursor=").count == 2)
        }
    }

    /// Pages are written from the store's bytes and single products from their values: both must give the same bytes,
    /// whatever the text holds, read forwards or backwards.
    @Test(arguments: StoreBackend.available) func aPageWritesEachProductExactlyAsItsOwnAddressDoes(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            let texts = ["plain", "quote \" and \\ backslash", "line\nbreak\ttab\r", "control \u{01}\u{1F}", "unicode é 😀 ✓"]
            let products = try texts.enumerated().map { index, text in
                Product(
                    serialCode: index == 0 ? "key with space+é\(index)" : "K\(index)", name: text, description: text, category: text,
                    brand: index % 2 == 0 ? "" : text, price: try Price(parsing: "\(index).0\(index)"), stock: index * 1_000_000_007,
                    updatedAt: index % 2 == 0 ? text : nil, sourceURL: index % 2 == 1 ? "https://example.test/\(text)" : "")
            }
            _ = try await components.store.upsertProducts(products, author: "api")
            var forward: [String] = []
            var uri: String? = "/products?page_size=2"
            var last = ""
            for _ in 0..<10 {
                guard let current = uri else { break }
                let response = try await get(client, current)
                forward.append(String(buffer: response.body))
                last = current
                uri = string(try json(response)["next"]).map(pathAndQuery)
            }
            // Backwards from the last page: each page before it is read last row first, and must come out the same.
            var backward: [String] = []
            var previous = string(try json(try await get(client, last))["previous"]).map(pathAndQuery)
            for _ in 0..<10 {
                guard let current = previous else { break }
                let response = try await get(client, current)
                backward.insert(String(buffer: response.body), at: 0)
                previous = string(try json(response)["previous"]).map(pathAndQuery)
            }
            #expect(forward.count == 3)
            #expect(backward == Array(forward.dropLast()))
            for product in products {
                let item = try await get(client, "/products/\(PathComponent.encode(product.serialCode))")
                #expect(item.status == .ok)
                #expect(forward.filter { $0.contains(String(buffer: item.body)) }.count == 1, "\(product.serialCode)")
                #expect(string(try json(item)["name"]) == product.name)
                #expect(string(try json(item)["serial_code"]) == product.serialCode)
            }
        }
    }

    @Test(arguments: StoreBackend.available) func filtersNarrowTheListAndCountMatchesTheRows(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store, products: 30)
            let cases: [(String, Int)] = [
                ("category=c1", 10), ("brand=Acme", 15), ("min_price=10.90&max_price=11.25", 6), ("in_stock=false", 8), ("in_stock=true", 22),
                ("search=BLUE", 8), ("category=c0&in_stock=true", 7),
            ]
            for (query, expected) in cases {
                let page = try json(try await get(client, "/products?page_size=1000&\(query)"))
                #expect(integer(page["count"]) == expected, "\(query)")
                #expect(array(page["results"]).count == expected, "\(query)")
            }
            let films = try json(try await get(client, "/films?director=George%20Lucas"))
            #expect(array(films["results"]).compactMap { integer($0["episode_id"]) } == [4])
        }
    }

    @Test(arguments: StoreBackend.available) func everyGETHasAnETagAndIfNoneMatchGives304(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store)
            for path in ["/", "/films", "/films/4", "/products", "/products/P001", "/categories", "/categories/c0", "/imports"] {
                let response = try await get(client, path)
                let tag = try #require(response.headers[.eTag], "\(path) has no ETag")
                for header in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                    let again = try await get(client, path, headers: [.ifNoneMatch: header])
                    #expect(again.status == .notModified, "\(path) with If-None-Match: \(header)")
                    #expect(again.body.readableBytes == 0)
                }
                let stale = try await get(client, path, headers: [.ifNoneMatch: "\"stale\""])
                #expect(stale.status == .ok)
            }
        }
    }

    @Test func aProductWriteChangesProductTagsOnlyEvenFromAnotherProcess() async throws {
        let harness = WriteHarness()
        try await harness.run { client, components in
            try await seedCatalogue(components.store)
            let films = try await get(client, "/films").headers[.eTag]
            let products = try await get(client, "/products").headers[.eTag]
            _ = try await components.store.upsertProducts(
                [Product(serialCode: "NEW", name: "n", category: "c0", price: try Price(parsing: "1"))], author: "api")
            #expect(try await get(client, "/films").headers[.eTag] == films)
            let afterWrite = try await get(client, "/products").headers[.eTag]
            #expect(afterWrite != products)
            // Another process (catalogd import from a shell) writing the same file.
            let other = try DatabaseQueue(path: harness.databasePath)
            try await other.write { db in
                try db.execute(sql: "UPDATE products SET stock = stock + 1 WHERE serial_code = 'NEW'")
                try db.execute(sql: "UPDATE versions SET version = version + 1 WHERE name = 'products'")
            }
            let afterOtherProcess = try await get(client, "/products").headers[.eTag]
            #expect(afterOtherProcess != afterWrite)
        }
    }

    @Test(arguments: StoreBackend.available) func everyBadInputIsAProblemNamingTheParameter(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store)
            let cursor = string(try json(try await get(client, "/products?ordering=name&page_size=2"))["next"]).flatMap {
                URLComponents(string: $0)?.queryItems?.first { $0.name == "cursor" }?.value
            }
            let cases: [(String, HTTPResponse.Status, String?)] = [
                ("/products?page_size=0", .badRequest, "page_size"), ("/products?page_size=1001", .badRequest, "page_size"),
                ("/products?page_size=abc", .badRequest, "page_size"), ("/products?ordering=password", .badRequest, "ordering"),
                ("/films?ordering=-nope", .badRequest, "ordering"), ("/products?cursor=garbage", .notFound, "cursor"),
                ("/products?ordering=-price&cursor=\(cursor ?? "")", .notFound, "cursor"), ("/products?min_price=abc", .badRequest, "min_price"),
                ("/products?max_price=-1", .badRequest, "max_price"), ("/products?in_stock=maybe", .badRequest, "in_stock"),
                ("/films/abc", .badRequest, "episode_id"), ("/films/0", .badRequest, "episode_id"), ("/imports/x", .badRequest, "id"),
                ("/films/99", .notFound, nil), ("/products/NOPE", .notFound, nil), ("/categories/nope", .notFound, nil),
                ("/imports/99", .notFound, nil),
                ("/no/such/route", .notFound, nil), ("/products?search=%27%3B%20DROP%20TABLE%20products%3B--", .ok, nil),
            ]
            for (uri, status, parameter) in cases {
                let response = try await get(client, uri)
                #expect(response.status == status, "\(uri)")
                guard status != .ok else { continue }
                #expect(response.headers[.contentType] == "application/problem+json", "\(uri)")
                let problem = try json(response)
                #expect(integer(problem["status"]) == Int(status.code))
                #expect(string(problem["detail"])?.isEmpty == false)
                if let parameter {
                    #expect(problem["parameter"] == .string(parameter), "\(uri)")
                    #expect(string(problem["detail"])?.contains(parameter) == true, "\(uri)")
                }
            }
        }
    }

    @Test(arguments: StoreBackend.available) func postingAnImportNeedsATokenAConfiguredSourceAndABody(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, _ in
            let body = ByteBuffer(string: #"{"source": "films"}"#)
            let anonymous = try await client.execute(uri: "/imports", method: .post, body: body)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate] != nil)
            let notConfigured = try await client.execute(uri: "/imports", method: .post, headers: authorized, body: body)
            #expect(notConfigured.status == .conflict)
            let bad = try await client.execute(
                uri: "/imports", method: .post, headers: authorized, body: ByteBuffer(string: #"{"source": "planets"}"#))
            #expect(bad.status == .badRequest)
            #expect(try json(bad)["parameter"] == .string("source"))
            let malformed = try await client.execute(uri: "/imports", method: .post, headers: authorized, body: ByteBuffer(string: "{"))
            #expect(malformed.status == .badRequest)
        }
        try await WriteHarness(backend: backend, token: nil).run { client, _ in
            let response = try await client.execute(uri: "/imports", method: .post, body: ByteBuffer(string: #"{"source": "films"}"#))
            #expect(response.status == .unauthorized)
        }
    }

    /// A search that matches nothing as typed is answered as corrected, and says so: `corrections` in the JSON, a line
    /// with a link to the search as typed on the page; `typos=0` searches what was typed.
    @Test(arguments: StoreBackend.available) func aMistypedSearchIsAnsweredAsCorrectedAndSaysSo(_ backend: StoreBackend) async throws {
        var harness = WriteHarness(backend: backend)
        harness.configuration.frequentTerms = nil
        try await harness.run { client, components in
            try await seedCatalogue(components.store)
            _ = try await components.store.refreshFrequentTerms(FrequentTermPolicy())
            let exact = try json(try await get(client, "/products?search=chair%20"))
            let typo = try json(try await get(client, "/products?search=chiar%20"))
            #expect(typo["count"] == exact["count"])
            let correction = try #require(array(typo["corrections"]).first)
            #expect(string(correction["typed"]) == "chiar")
            #expect(array(correction["searched"]).map(string) == ["chair"])
            #expect(exact["corrections"] == nil)
            let asTyped = try json(try await get(client, "/products?search=chiar%20&typos=0"))
            #expect(asTyped["count"] == .number("0") && asTyped["corrections"] == nil)
            #expect(try await get(client, "/products?search=chiar%20&typos=maybe").status == .badRequest)
            let page = String(buffer: try await get(client, "/products?search=chiar%20", headers: [.accept: "text/html"]).body)
            #expect(page.contains("Showing results for <strong>chair</strong>"))
            #expect(page.contains("typos=0"))
        }
        // `--search-typos off`: searched as typed, whatever the request says.
        harness.configuration.correctsTypos = false
        try await harness.run { client, components in
            try await seedCatalogue(components.store)
            _ = try await components.store.refreshFrequentTerms(FrequentTermPolicy())
            let typo = try json(try await get(client, "/products?search=chiar%20&typos=1"))
            #expect(typo["count"] == .number("0") && typo["corrections"] == nil)
        }
    }

    /// Each page of a search is counted by how it was read: on SQLite along its ranks, on PostgreSQL (whose reads
    /// include every match of a word at once) from the typed prefix's entries; in another ordering, by its keyset.
    @Test(arguments: StoreBackend.available) func searchPlansAreCountedInTheMetrics(_ backend: StoreBackend) async throws {
        var harness = WriteHarness(backend: backend)
        // Without the frequent words' sets, which would spell the prefix out whenever they are ready.
        harness.configuration.frequentTerms = nil
        try await harness.run { client, components in
            try await seedCatalogue(components.store)
            #expect(try await get(client, "/products?search=lamp").status == .ok)
            #expect(try await get(client, "/products?search=lamp&ordering=name").status == .ok)
            let metrics = String(buffer: try await get(client, "/metrics").body)
            let first = backend == .sqlite ? "walk" : "word_entries"
            #expect(metrics.contains(#"catalogd_search_plans_total{plan="\#(first)"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"catalogd_search_plans_total{plan="keyset"} 1"#))
            #expect(metrics.contains(#"catalogd_search_plans_total{plan="best_rank_first"} 0"#))
        }
    }

    @Test(arguments: StoreBackend.available) func operationsEndpointsAnswer(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store)
            #expect(try await get(client, "/healthz").status == .ok)
            #expect(try await get(client, "/readyz").status == .ok)
            _ = try await get(client, "/films")
            let metrics = String(buffer: try await get(client, "/metrics").body)
            #expect(metrics.contains(#"catalogd_http_requests_total{method="GET",route="/films",status="200"} 1"#))
            #expect(metrics.contains(#"catalogd_store_rows{table="products"} 30"#))
            let spec = try await get(client, "/openapi.yaml")
            #expect(spec.status == .ok)
            #expect(String(buffer: spec.body).hasPrefix("openapi: 3.1.0"))
            let echoed = try await get(client, "/healthz", headers: [.requestID: "trace-123"])
            #expect(echoed.headers[.requestID] == "trace-123")
            let generated = try await get(client, "/healthz", headers: [.requestID: "bad id with spaces"])
            #expect(generated.headers[.requestID]?.isEmpty == false)
            #expect(generated.headers[.requestID] != "bad id with spaces")
        }
    }
}

@Suite("Over a real socket")
struct LiveServerTests {
    @Test func aLiveServerAnswersOnLoopbackWithHEADAndTrailingSlashes() async throws {
        let harness = WriteHarness()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        let (application, components) = try await harness.build()
        try await seedCatalogue(components.store)
        try await application.test(.live) { client in
            #expect(client.port != nil)
            let films = try json(try await get(client, "/films/"))
            #expect(integer(films["count"]) == 2)
            // Links are built from the Host the client sent (HummingbirdTesting sends "localhost").
            #expect(string(array(films["results"]).first?["url"]) == "http://localhost/films/4/")
            let head = try await client.execute(uri: "/products/P001", method: .head)
            #expect(head.status == .ok)
            #expect(head.headers[.eTag] != nil)
            let missing = try await get(client, "/products/NOPE/")
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType] == "application/problem+json")
        }
    }
}
