import CatalogFixtures
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CatalogAPI

@Suite("Pages: the same URLs for people, negotiated, escaped and cached like the JSON")
struct PageTests {
    /// What a browser sends.
    static let browser: HTTPFields = [.accept: "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"]
    /// Names a feed or a writer could supply that would run as script if they were written unescaped.
    static let hostileNames = ["<img src=x onerror=alert(1)>", "<script>alert(2)</script>", "\"><svg onload=alert(3)>", "Tom & Jerry's"]

    static func seed(_ store: any CatalogStore) async throws {
        let products = try hostileNames.enumerated().map { index, name in
            Product(
                serialCode: "H\(index)", name: name, description: "a lamp named \(name)", category: name, brand: name,
                price: try Price(parsing: "1\(index).50"), stock: index)
        }
        _ = try await store.upsertProducts(products, author: "api")
    }

    static func body(_ response: TestResponse) -> String { String(buffer: response.body) }

    @Test func acceptDecidesTheFormatAndFormatOverridesIt() throws {
        func format(_ accept: String?, _ uri: String = "/products", alsoAccept: String? = nil) throws -> ResponseFormat {
            var headers: HTTPFields = [:]
            if let accept { headers[.accept] = accept }
            if let alsoAccept { headers.append(HTTPField(name: .accept, value: alsoAccept)) }
            return try ResponseFormat(
                Request(
                    head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
                    body: .init(buffer: ByteBuffer())))
        }
        #expect(try format(nil) == .json)
        #expect(try format("*/*") == .json)
        #expect(try format("application/json") == .json)
        #expect(try format("text/html, application/json") == .json)
        #expect(try format("text/html;q=0.5, application/json;q=0.9") == .json)
        #expect(try format("application/json;q=0.5, text/html") == .html)
        #expect(try format("text/html") == .html)
        #expect(try format(Self.browser[.accept]) == .html)
        #expect(try format("text/html;q=0.8, application/*;q=0.9") == .json)
        #expect(try format(Self.browser[.accept], "/products?format=json") == .json)
        #expect(try format("*/*", "/products?format=html") == .html)
        #expect(throws: Problem.self) { try format(nil, "/products?format=xml") }
        // Several Accept fields count as one list of their ranges.
        #expect(try format("text/html", alsoAccept: "application/json") == .json)
        #expect(try format("application/json;q=0.5", alsoAccept: "text/html") == .html)
        #expect(try format("image/webp", alsoAccept: " text/html ; q=0.9 ,*/*;q=0.8") == .html)
    }

    @Test func textAndAttributesAreEscapedWhereverTheCharactersFall() {
        let cases = [
            ("", ""), ("plain", "plain"), ("<", "&lt;"), ("a<b>&\"'c", "a&lt;b&gt;&amp;&quot;&#39;c"), ("&&", "&amp;&amp;"),
            ("café <é>", "café &lt;é&gt;"), ("end'", "end&#39;"),
        ]
        for (value, escaped) in cases {
            var html = HTMLWriter()
            html.text(value)
            #expect(String(decoding: html.bytes, as: UTF8.self) == escaped, "\(value)")
            var attribute = HTMLWriter()
            attribute.open("a", ["title": value])
            #expect(String(decoding: attribute.bytes, as: UTF8.self) == (value.isEmpty ? "<a title>" : "<a title=\"\(escaped)\">"), "\(value)")
        }
    }

    @Test(arguments: StoreBackend.available) func jsonClientsGetTheSameBytesAndBrowsersGetAPage(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store)
            let cached = [
                "/products", "/products?search=lamp&page_size=2", "/products/H1", "/products?brand=Tom%20%26%20Jerry's&facets=category",
                "/categories",
                "/categories/Tom%20%26%20Jerry's", "/imports", "/films",
            ]
            for uri in cached {
                let plain = try await get(client, uri)
                #expect(plain.headers[.contentType] == "application/json", "\(uri)")
                #expect(plain.headers[.vary] == "Accept, Accept-Encoding", "\(uri)")
                for accept in ["*/*", "application/json", "text/html, application/json"] {
                    let other = try await get(client, uri, headers: [.accept: accept])
                    #expect(other.body == plain.body && other.headers[.eTag] == plain.headers[.eTag], "\(uri) with \(accept)")
                }
                let page = try await get(client, uri, headers: Self.browser)
                #expect(page.status == .ok, "\(uri)")
                #expect(page.headers[.contentType] == "text/html; charset=utf-8", "\(uri)")
                #expect(page.headers[.vary] == "Accept, Accept-Encoding", "\(uri)")
                #expect(page.headers[.eTag] != nil && page.headers[.eTag] != plain.headers[.eTag], "\(uri)")
                #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true, "\(uri)")
                #expect(page.headers[.contentSecurityPolicy]?.contains("unsafe-inline") == false, "\(uri)")
                #expect(page.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                #expect(Self.body(page).hasPrefix("<!DOCTYPE html>"), "\(uri)")
                let notModified = try await get(client, uri, headers: Self.browser + [.ifNoneMatch: page.headers[.eTag] ?? ""])
                #expect(notModified.status == .notModified, "\(uri)")
                let jsonTagOnPage = try await get(client, uri, headers: Self.browser + [.ifNoneMatch: plain.headers[.eTag] ?? ""])
                #expect(jsonTagOnPage.status == .ok, "\(uri)")
                let forcedPage = try await get(client, uri + (uri.contains("?") ? "&" : "?") + "format=html")
                #expect(forcedPage.headers[.contentType] == "text/html; charset=utf-8", "\(uri)")
                let forcedJSON = try await get(client, uri + (uri.contains("?") ? "&" : "?") + "format=json", headers: Self.browser)
                #expect(forcedJSON.headers[.contentType] == "application/json", "\(uri)")
            }
            // Pages that read several families, or the newest changes, are made for each request.
            for uri in ["/", "/changes"] {
                let plain = try await get(client, uri)
                #expect(plain.headers[.contentType] == "application/json", "\(uri)")
                #expect(try await get(client, uri, headers: [.accept: "*/*"]).body == plain.body, "\(uri)")
                let page = try await get(client, uri, headers: Self.browser)
                #expect(page.headers[.contentType] == "text/html; charset=utf-8", "\(uri)")
                #expect(page.headers[.contentSecurityPolicy] == PageSecurity.contentSecurityPolicy, "\(uri)")
                #expect(page.headers[.cacheControl] == "no-cache", "\(uri)")
            }
            let bad = try await get(client, "/products?format=xml", headers: Self.browser)
            #expect(bad.status == .badRequest)
            #expect(bad.headers[.contentType] == "application/problem+json")
        }
    }

    @Test(arguments: StoreBackend.available) func valuesFromFeedsAndWritersAreTextNeverMarkup(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store)
            for uri in [
                "/products", "/products?facets=brand", "/products?search=lamp", "/products/H0", "/products/H1", "/products/H2", "/categories",
                "/categories/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E",
            ] {
                let page = Self.body(try await get(client, uri, headers: Self.browser))
                for raw in ["<img src=x", "<script>alert", "<svg onload", "onerror=alert(1)>"] {
                    #expect(!page.contains(raw), "\(uri) holds \(raw)")
                }
                #expect(page.contains("&lt;") && page.contains("&gt;"), "\(uri)")
            }
            let list = Self.body(try await get(client, "/products", headers: Self.browser))
            #expect(list.contains("&lt;img src=x onerror=alert(1)&gt;"))
            #expect(list.contains("&quot;&gt;&lt;svg onload=alert(3)&gt;"))
            #expect(list.contains("Tom &amp; Jerry&#39;s"))
            // The only script a page loads is the service's own file.
            #expect(list.components(separatedBy: "<script").count == 2)
        }
    }

    @Test(arguments: StoreBackend.available) func aListPageHasTheSearchFacetsSortingAndCursors(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store)
            let page = Self.body(try await get(client, "/products?page_size=2&ordering=price", headers: Self.browser))
            #expect(page.contains("<p class=\"count\">4 products</p>"))
            #expect(page.contains("<input id=\"search\" name=\"search\" type=\"search\""))
            #expect(page.contains("aria-sort=\"ascending\"><a href=\"/products?page_size=2&amp;ordering=-price\">Price ↑</a>"))
            #expect(page.contains("href=\"/products?page_size=2&amp;ordering=price&amp;brand=Tom%20%26%20Jerry%27s\""))
            let next = try #require(
                page.range(of: "rel=\"next\"") != nil ? page.components(separatedBy: "<a href=\"").first { $0.contains("rel=\"next\"") } : nil)
            let nextURL = String(next.prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
            let second = Self.body(try await get(client, nextURL, headers: Self.browser))
            #expect(second.contains("rel=\"prev\""))
            #expect(second.contains("H2") && second.contains("H3") && !second.contains(">H0<"))
            let json = try await get(client, "/products?page_size=2&ordering=price&format=json")
            #expect(json.headers[.contentType] == "application/json")
            #expect(page.contains("href=\"/products?page_size=2&amp;ordering=price&amp;format=json&amp;facets=category,brand&amp;facet_size=12\""))
        }
    }

    @Test(arguments: StoreBackend.available) func aProductPageListsItsOwnChangesNewestFirst(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store)
            let renamed = Product(serialCode: "H3", name: "Renamed", category: "lamps", price: try Price(parsing: "2.00"), stock: 1)
            _ = try await components.store.upsertProducts([renamed], author: "merchandising")
            _ = try await components.store.upsertProducts(
                [Product(serialCode: "OTHER", name: "Other", category: "lamps", price: try Price(parsing: "1"), stock: 1)], author: "api")
            let history = try await components.store.changes(of: .product, key: "H3", limit: 10)
            #expect(history.map(\.author) == ["merchandising", "api"])
            #expect(history.map(\.seq) == history.map(\.seq).sorted(by: >))
            let page = Self.body(try await get(client, "/products/H3", headers: Self.browser))
            let shown = try #require(page.components(separatedBy: "<h2>History</h2>").last)
            let newest = try #require(shown.range(of: "by merchandising"))
            let first = try #require(shown.range(of: "by api"))
            #expect(newest.lowerBound < first.lowerBound)
            #expect(!shown.contains("OTHER"))
            let other = Self.body(try await get(client, "/products/OTHER", headers: Self.browser))
            #expect(other.components(separatedBy: "<h2>History</h2>").last?.contains("H3") == false)
        }
    }

    @Test(arguments: StoreBackend.available) func aRunningImportsPageLoadsItselfAgainUntilTheRunEnds(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            let running = try await components.store.beginImport(source: .products)
            let refresh = "<meta http-equiv=\"refresh\" content=\"\(ListPage<ImportReport>.refreshSeconds)\">"
            #expect(Self.body(try await get(client, "/imports/\(running.id)", headers: Self.browser)).contains(refresh))
            #expect(Self.body(try await get(client, "/imports", headers: Self.browser)).contains(refresh))
            var failed = running
            failed.status = .failed
            failed.error = "the upstream said <b>no</b>"
            try await components.store.failImport(failed)
            let ended = Self.body(try await get(client, "/imports/\(running.id)", headers: Self.browser))
            #expect(!ended.contains("http-equiv=\"refresh\""))
            #expect(ended.contains("the upstream said &lt;b&gt;no&lt;/b&gt;"))
        }
    }

    @Test(arguments: StoreBackend.available) func aFormSubmittedWithoutScriptIsRedirectedToTheURLTheLinksUse(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store)
            let submitted = try await get(
                client, "/products?search=Tom+%26+Jerry&category=&brand=&min_price=&max_price=&in_stock=&ordering=", headers: Self.browser)
            #expect(submitted.status == .seeOther)
            #expect(submitted.headers[.location] == "/products?search=Tom%20%26%20Jerry")
            let empty = try await get(client, "/products?search=&min_price=", headers: Self.browser)
            #expect(empty.headers[.location] == "/products")
            let page = Self.body(try await get(client, "/products?search=Tom%20%26%20Jerry", headers: Self.browser))
            #expect(page.contains("<p class=\"count\">1 product matching “Tom &amp; Jerry”</p>"))
            // A form whose clean URL would still be refused is refused here, not redirected to a 400.
            let refused = try await get(client, "/products?search=lamp+desk&page_size=&page_size=many", headers: Self.browser)
            #expect(refused.status == .badRequest)
            let refusedFilms = try await get(client, "/films?director=&page_size=0", headers: Self.browser)
            #expect(refusedFilms.status == .badRequest)
            // JSON reads an empty field as the page does: left out (openapi.yaml says so).
            #expect(try await get(client, "/products?min_price=").status == .ok)
        }
    }

    /// Issue 42's request, found by schemathesis: the page redirected it while the JSON refused it.
    static let issue42Query =
        "facet_size=26&ordering=price&facets=&page_size=&brand=%C3%AA&cursor=%F1%97%BF%9Aj&category=%01%C3%8D%C2%8A%F0%A3%BD%8B"
        + "&in_stock=false&min_price=058035227951&format=html&search=V%C3%AC%C2%ACu%F0%A9%B5%968&max_price=000009"

    @Test(arguments: StoreBackend.available) func aPageRefusesTheRequestTheJSONRefusesBeforeItRedirects(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store)
            for query in [Self.issue42Query, Self.issue42Query.replacingOccurrences(of: "&page_size=", with: "")] {
                let json = try await get(client, "/products?" + query.replacingOccurrences(of: "format=html", with: "format=json"))
                let page = try await get(client, "/products?" + query)
                // The empty page_size is left out by both; the cursor is not one this service issued: 404 naming it.
                #expect(json.status == .notFound, "\(query)")
                #expect(page.status == .notFound, "\(query)")
                #expect(page.headers[.location] == nil, "\(query)")
                #expect(page.headers[.contentType] == "application/problem+json", "\(query)")
            }
        }
    }

    @Test(arguments: StoreBackend.available) func aPageRefusesExactlyWhatTheJSONRefusesWithTheSameStatus(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await seedCatalogue(components.store)
            // Cursors this service issued, each for its own ordering: valid with it, a 404 with any other.
            var cursors: [String] = []
            for list in ["/products?page_size=1", "/products?page_size=1&ordering=-price", "/products?page_size=2&search=lamp"] {
                let next = try #require(string(try json(try await get(client, list))["next"]))
                cursors += pathAndQuery(next).split(separator: "&").filter { $0.hasPrefix("cursor=") }.map { String($0.dropFirst(7)) }
            }
            #expect(cursors.count == 3)
            var mismatches: [String] = []
            var pageStatuses: [Int: Int] = [:]
            for query in Self.randomProductQueries(count: 300, cursors: cursors) {
                let json = try await get(client, "/products?" + query)
                for (uri, headers) in [("/products?" + query, Self.browser), ("/products?" + query + "&format=html", [:])] {
                    let page = try await get(client, uri, headers: headers)
                    pageStatuses[Int(page.status.code), default: 0] += 1
                    let refused = (page: page.status.code >= 400, json: json.status.code >= 400)
                    if refused.page != refused.json || (refused.json && page.status != json.status) {
                        mismatches.append("\(uri): page \(page.status.code), JSON \(json.status.code)")
                    } else if page.status == .seeOther {
                        // The redirect's target is the same list: it answers, as the JSON did.
                        let target = try await get(client, page.headers[.location] ?? "", headers: headers)
                        if target.status != .ok { mismatches.append("\(uri): redirected to a \(target.status.code)") }
                    }
                }
            }
            let found = mismatches.count
            #expect(found == 0, "\(found) disagreements, the first: \(mismatches.prefix(5))")
            // The queries reach every answer: a page, a redirect, a 400 and a 404.
            let reached = Set(pageStatuses.keys)
            #expect(reached.isSuperset(of: [200, 303, 400, 404]), "page statuses: \(pageStatuses)")
        }
    }

    /// `count` query strings for `/products`, from a fixed seed: each parameter with values it takes, values no
    /// parameter takes, empty ones, a form's `+` for a space, broken percent-encoding and cursors of other orderings.
    static func randomProductQueries(count: Int, cursors: [String]) -> [String] {
        var random = SplitMix64(seed: 20_261_122)
        let long = String(repeating: "a", count: SearchText.maximumBytes - 2)
        let anyValue = ["", "+", "%", "%+2", "%zz", "=", "a=b", "%00", "%F1%97%BF%9Aj", "abc", "+5", "5+", "-1", "0", "1e+2", "1e2", "%2B1", "%20"]
        let parameters: [(name: String, values: [String])] = [
            ("page_size", ["1", "20", "1000", "1001", "007"]), ("facet_size", ["1", "26", "50", "51"]),
            ("ordering", ["price", "-price", "name", "relevance", "-stock", "bogus", "+price", "price+"]),
            ("facets", ["category", "brand,category", "category,", "colour", "category+brand"]),
            ("in_stock", ["true", "FALSE", "1", "no", "maybe"]),
            ("min_price", ["0", "19.99", "058035227951", "1.1234567", "1234567890123", "10+"]),
            ("max_price", ["000009", "10.5", ".5", "10.", "1e%2B2"]),
            ("search", ["lamp", "blue+lamp", "%22blue%20lamp%22", long + "a+", long + "%+", long + "aa+", "%C3%A9"]),
            ("category", ["c1", "%01%C3%8D%C2%8A%F0%A3%BD%8B"]), ("brand", ["Acme", "%C3%AA", "Tom+%26+Jerry"]),
            ("cursor", cursors + ["garbage", "%F1%97%BF%9Aj", "+"]), ("unknown", ["1"]),
        ]
        func pick<Element>(_ elements: [Element]) -> Element { elements[Int(random.next() % UInt64(elements.count))] }
        return (0..<count).map { _ in
            let fields = (0..<Int(random.next() % 7)).map { _ in
                let parameter = pick(parameters)
                switch random.next() % 12 {
                case 0: return parameter.name
                case 1: return ""
                case 2...4: return parameter.name + "=" + pick(anyValue)
                default: return parameter.name + "=" + pick(parameter.values)
                }
            }
            return fields.joined(separator: "&")
        }
    }

    @Test(arguments: StoreBackend.available) func theResultsComeBeforeTheFacetsFoldedUnderFilters(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store)
            let page = Self.body(try await get(client, "/products", headers: Self.browser))
            // A phone shows the first rows on its first screen; a wide screen shows the facets beside them (catalogd.css).
            let table = try #require(page.range(of: "<table"))
            let filters = try #require(page.range(of: "<details><summary>Filters</summary>"))
            let facets = try #require(page.range(of: "<h2>Category</h2>"))
            #expect(table.upperBound < filters.lowerBound)
            #expect(filters.upperBound <= facets.lowerBound)
        }
    }

    @Test(arguments: StoreBackend.available) func assetsAreServedWithLongCachingAndUnknownOnesAre404(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, _ in
            for asset in PageAsset.all {
                let response = try await get(client, asset.path)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == asset.contentType)
                #expect(response.headers[.cacheControl]?.contains("immutable") == true)
                #expect(Array(response.body.readableBytesView) == asset.bytes)
            }
            #expect(try await get(client, "/assets/catalogd-0.css").status == .notFound)
        }
    }
}
