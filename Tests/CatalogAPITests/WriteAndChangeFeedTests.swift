import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SQLiteStore
import Testing

@testable import CatalogAPI

/// A service on a fresh store (SQLite in a temporary folder, or a PostgreSQL database of its own), with writes
/// enabled unless `token` is nil.
struct WriteHarness {
    let backend: StoreBackend
    let directory: URL
    var configuration = ServiceConfiguration()
    /// `.live` runs a real HTTP server on a loopback port, for what only the wire shows (encodings, headers).
    var setup = TestingSetup.router

    init(backend: StoreBackend = .sqlite, token: String? = "secret", maximumBodyBytes: Int = 32 * 1024 * 1024) {
        self.backend = backend
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-writes-\(UUID().uuidString)")
        configuration.port = 0
        configuration.feeds = FeedLocations(films: "", products: "")
        configuration.importInterval = nil
        configuration.apiToken = token
        configuration.maximumBodyBytes = maximumBodyBytes
    }

    /// The store's file.
    var databasePath: String { directory.appendingPathComponent("catalog.sqlite").path }

    /// Opens the store and builds the service around it.
    func build(
        logger: Logger = Logger(label: "catalogd-tests"), onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> (application: some ApplicationProtocol, components: ServiceComponents) {
        try await buildApplication(configuration, store: try SQLiteCatalogStore(path: databasePath), logger: logger, onServerRunning: onServerRunning)
    }

    /// Runs `test` against the router, then removes the store.
    func run(_ test: @escaping @Sendable (any TestClientProtocol, ServiceComponents) async throws -> Void) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        guard backend == .postgres else {
            let (application, components) = try await build()
            return try await application.test(setup) { client in try await test(client, components) }
        }
        let testStore = try await TestStore.open(.postgres)
        defer { testStore.remove() }
        let (application, components) = try await buildApplication(configuration, store: testStore.store, logger: Logger(label: "catalogd-tests"))
        try await application.test(setup) { client in try await test(client, components) }
    }
}

let authorized: HTTPFields = [.authorization: "Bearer secret", .contentType: "application/json"]

func json(_ response: TestResponse) throws -> JSONValue {
    try JSONParser.parse(Array(response.body.readableBytesView))
}

func integer(_ value: JSONValue?) -> Int? {
    if case .number(let text)? = value { return Int(text) }
    return nil
}

@Suite("Writes through the API")
struct WriteTests {
    @Test(arguments: StoreBackend.available) func writesWithoutAnyTokenAreUnauthorizedWithAHint(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend, token: nil).run { client, _ in
            let response = try await client.execute(uri: "/products/A", method: .put, headers: authorized, body: ByteBuffer(string: "{}"))
            #expect(response.status == .unauthorized)
            #expect(response.headers[.contentType] == "application/problem+json")
            let detail = try json(response)["detail"]
            #expect(detail == .string("the bearer token is not valid: unknown, revoked or mistyped (tokens are made with catalogd token create)"))
        }
    }

    @Test(arguments: StoreBackend.available) func aMissingOrWrongTokenIsUnauthorized(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, _ in
            for headers: HTTPFields in [[:], [.authorization: "Bearer nope"], [.authorization: "Basic c2VjcmV0"]] {
                let response = try await client.execute(uri: "/products/A", method: .delete, headers: headers)
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"catalogd\", scope=\"products:write\"")
            }
        }
    }

    @Test(arguments: StoreBackend.available) func putCreatesThenUpdatesThenLeavesAnUnchangedProductAlone(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            let body = #"{"name": "Lamp", "category": "home", "price": 12.50, "stock": 3}"#
            let created = try await client.execute(uri: "/products/LAMP-1", method: .put, headers: authorized, body: ByteBuffer(string: body))
            #expect(created.status == .created)
            #expect(created.headers[.location]?.hasSuffix("/products/LAMP-1/") == true)
            #expect(String(buffer: created.body).contains(#""price":12.50"#))
            let seqAfterCreate = try await components.store.versions().lastSeq
            let again = try await client.execute(uri: "/products/LAMP-1/", method: .put, headers: authorized, body: ByteBuffer(string: body))
            #expect(again.status == .ok)
            let seqAfterSame = try await components.store.versions().lastSeq
            #expect(seqAfterSame == seqAfterCreate)
            let moved = #"{"name": "Lamp", "category": "garden", "price": 12.50, "stock": 3}"#
            let updated = try await client.execute(uri: "/products/LAMP-1", method: .put, headers: authorized, body: ByteBuffer(string: moved))
            #expect(updated.status == .ok)
            let garden = try await components.store.category(name: "garden").0?.productCount
            let home = try await components.store.category(name: "home").0
            #expect(garden == 1)
            #expect(home == nil)
        }
    }

    /// PostgreSQL's text cannot hold U+0000: on either store such a record is refused naming the field, and nothing lands.
    @Test(arguments: StoreBackend.available) func aTextHoldingUPlus0000IsRefusedNamingTheField(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, _ in
            let body = ByteBuffer(string: #"{"name": "Desk\u0000", "category": "c", "price": 5}"#)
            let refused = try await client.execute(uri: "/products/DESK", method: .put, headers: authorized, body: body)
            #expect(refused.status == .unprocessableContent)
            #expect(String(buffer: refused.body).contains("name must not contain U+0000"))
            #expect(try await get(client, "/products/DESK").status == .notFound)
        }
    }

    @Test(arguments: StoreBackend.available) func keysInThePathArePercentDecodedAndCheckedLikeAnyOther(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, _ in
            let body = ByteBuffer(string: #"{"name": "Desk", "category": "Home Office é", "price": 5}"#)
            let created = try await client.execute(uri: "/products/DESK%20%C3%A9", method: .put, headers: authorized, body: body)
            #expect(created.status == .created)
            let location = try #require(created.headers[.location])
            #expect(location.hasSuffix("/products/DESK%20%C3%A9/"))
            let product = try json(try await get(client, pathAndQuery(location)))
            #expect(string(product["serial_code"]) == "DESK é")
            let category = try await get(client, "/categories/Home%20Office%20%C3%A9")
            #expect(category.status == .ok)
            for bad in ["a%2Fb", "a%00b", "a%7Fb", "..%2F..%2Fetc%2Fpasswd"] {
                let refused = try await client.execute(uri: "/products/\(bad)", method: .put, headers: authorized, body: body)
                #expect(refused.status == .unprocessableContent, "\(bad)")
            }
            let malformed = try await client.execute(uri: "/products/a%ZZ", method: .put, headers: authorized, body: body)
            #expect(malformed.status == .badRequest)
        }
    }

    @Test(arguments: StoreBackend.available) func aFilmIsPutWithItsLinksAndDeleted(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            let body = #"{"title": "The Force Awakens", "release_date": "2015-12-18", "characters": ["a", "b"], "planets": ["p"]}"#
            let created = try await client.execute(uri: "/films/7", method: .put, headers: authorized, body: ByteBuffer(string: body))
            #expect(created.status == .created)
            let film = try json(created)
            #expect(integer(film["character_count"]) == 2)
            #expect(integer(film["planet_count"]) == 1)
            #expect(film["source"] == .string("api"))
            let badDate = try await client.execute(
                uri: "/films/7", method: .put, headers: authorized, body: ByteBuffer(string: #"{"title": "x", "release_date": "2015-02-30"}"#))
            #expect(badDate.status == .unprocessableContent)
            let deleted = try await client.execute(uri: "/films/7/", method: .delete, headers: authorized)
            #expect(deleted.status == .noContent)
            let gone = try await client.execute(uri: "/films/7", method: .get)
            #expect(gone.status == .notFound)
            let history = try await components.store.changes(since: 0, limit: 10).changes.map { "\($0.entity) \($0.key) \($0.op)" }
            #expect(history == ["film 7 upsert", "film 7 delete"])
        }
    }

    @Test(arguments: StoreBackend.available) func aKeyInTheBodyMustMatchThePath(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, _ in
            let body = #"{"serial_code": "OTHER", "name": "Lamp", "category": "home", "price": 1}"#
            let response = try await client.execute(uri: "/products/LAMP-1", method: .put, headers: authorized, body: ByteBuffer(string: body))
            #expect(response.status == .badRequest)
            #expect(try json(response)["parameter"] == .string("serial_code"))
        }
    }

    @Test(arguments: StoreBackend.available) func anInvalidRecordIsRejectedWithTheImportersReason(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, _ in
            let body = #"{"name": "Lamp", "category": "home", "price": -1}"#
            let response = try await client.execute(uri: "/products/LAMP-1", method: .put, headers: authorized, body: ByteBuffer(string: body))
            #expect(response.status == .unprocessableContent)
            #expect(try json(response)["detail"] == .string("price must not be negative, got -1"))
        }
    }

    @Test(arguments: StoreBackend.available) func deletingTwiceReturns404(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            _ = try await components.store.upsertProducts(
                [Product(serialCode: "A", name: "a", category: "c", price: try Price(parsing: "1"))], author: "api")
            let first = try await client.execute(uri: "/products/A", method: .delete, headers: authorized)
            #expect(first.status == .noContent)
            let second = try await client.execute(uri: "/products/A", method: .delete, headers: authorized)
            #expect(second.status == .notFound)
        }
    }

    @Test(arguments: StoreBackend.available) func aBatchOfNDJSONOrAJSONArrayLandsWithItsReport(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            var headers = authorized
            headers[.contentType] = "application/x-ndjson"
            let ndjson = """
                {"sku": "A", "title": "a", "category": "c", "price": 1}
                {"sku": "B", "title": "b", "category": "c", "price": -2}
                not json
                {"sku": "A", "title": "a2", "category": "c", "price": 1}

                """
            let response = try await client.execute(uri: "/products", method: .post, headers: headers, body: ByteBuffer(string: ndjson))
            #expect(response.status == .ok)
            let report = try json(response)
            #expect(integer(report["inserted"]) == 1)
            #expect(integer(report["rejected"]) == 3)
            guard case .array(let rejections)? = report["rejections"] else { Issue.record("no rejections"); return }
            #expect(rejections.compactMap { integer($0["index"]) } == [0, 1, 2])
            let array = #"[{"sku": "A", "title": "a2", "category": "c", "price": 1}, {"sku": "C", "title": "c", "category": "c", "price": 3}]"#
            let second = try json(try await client.execute(uri: "/products", method: .post, headers: authorized, body: ByteBuffer(string: array)))
            #expect(integer(second["unchanged"]) == 1)
            #expect(integer(second["inserted"]) == 1)
            let count = try await components.store.category(name: "c").0?.productCount
            #expect(count == 2)
        }
    }

    @Test(arguments: StoreBackend.available) func aBodyOverTheLimitIs413(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend, maximumBodyBytes: 1024).run { client, _ in
            let big = "[" + Array(repeating: #"{"sku": "A", "title": "a", "category": "c", "price": 1}"#, count: 100).joined(separator: ",") + "]"
            let response = try await client.execute(uri: "/products", method: .post, headers: authorized, body: ByteBuffer(string: big))
            #expect(response.status == .contentTooLarge)
            #expect(response.headers[.contentType] == "application/problem+json")
        }
    }

    @Test func anImportRestoresWhatTheAPIDeletedAndTheHistoryShowsBoth() async throws {
        var harness = WriteHarness()
        let feed = harness.directory.appendingPathComponent("products.json")
        harness.configuration.feeds = FeedLocations(films: "", products: feed.path)
        try await harness.run { client, components in
            try Data(#"[{"sku": "A", "title": "a", "category": "c", "price": 1}, {"sku": "B", "title": "b", "category": "c", "price": 2}]"#.utf8)
                .write(to: feed)
            _ = try await components.importer.run(.products)
            let deleted = try await client.execute(uri: "/products/A", method: .delete, headers: authorized)
            #expect(deleted.status == .noContent)
            let changed = try await client.execute(
                uri: "/products/B", method: .put, headers: authorized, body: ByteBuffer(string: #"{"name": "b", "category": "c", "price": 9}"#))
            #expect(changed.status == .ok)
            let report = try await components.importer.run(.products)
            #expect(report.inserted == 1)
            #expect(report.updated == 1)
            let history = try await components.store.changes(since: 0, limit: 100).changes.map { "\($0.key) \($0.op) \($0.author)" }
            #expect(
                history == [
                    "A upsert import:products", "B upsert import:products", "A delete token:bootstrap", "B upsert token:bootstrap",
                    "A upsert import:products",
                    "B upsert import:products",
                ])
            let price = try await components.store.product(serialCode: "B").0?.product.price.text
            #expect(price == "2")
            let problems = try await components.store.check()
            #expect(problems.isEmpty)
        }
    }
}

@Suite("The change feed")
struct ChangeFeedTests {
    static func seed(_ store: any CatalogStore, count: Int) async throws {
        for index in 0..<count {
            _ = try await store.upsertProducts(
                [Product(serialCode: "P\(index)", name: "p", category: "c", price: try Price(parsing: "1"))], author: "api")
        }
    }

    @Test(arguments: StoreBackend.available) func changesArePagedWithLastSeqAndPending(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store, count: 5)
            _ = try await components.store.upsertFilms([Film(episodeID: 1, title: "t", releaseDate: "1977-05-25")], author: "api")
            let first = try json(try await client.execute(uri: "/changes?since=0&limit=2", method: .get))
            #expect(integer(first["last_seq"]) == 2)
            #expect(integer(first["pending"]) == 4)
            guard case .array(let results)? = first["results"] else { Issue.record("no results"); return }
            #expect(results.first?["entity"] == .string("product"))
            #expect(results.first?["op"] == .string("upsert"))
            #expect(results.first?["author"] == .string("api"))
            let films = try json(try await client.execute(uri: "/changes?since=2&entity=film", method: .get))
            guard case .array(let filmChanges)? = films["results"] else { Issue.record("no results"); return }
            #expect(filmChanges.count == 1)
            #expect(filmChanges.first?["key"] == .string("1"))
            #expect(integer(films["last_seq"]) == 6)
        }
    }

    @Test(arguments: StoreBackend.available) func aBadTokenIs400AndAPrunedOneIs410(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store, count: 3)
            let bad = try await client.execute(uri: "/changes?since=abc", method: .get)
            #expect(bad.status == .badRequest)
            #expect(try json(bad)["parameter"] == .string("since"))
            let pruned = try await components.store.pruneHistory(before: "9999-01-01T00:00:00Z")
            #expect(pruned == 2)
            let gone = try await client.execute(uri: "/changes?since=0", method: .get)
            #expect(gone.status == .gone)
            #expect(gone.headers[.contentType] == "application/problem+json")
            #expect(integer(try json(gone)["last_seq"]) == 3)
            let current = try await client.execute(uri: "/changes?since=2", method: .get)
            #expect(current.status == .ok)
        }
    }

    @Test(arguments: StoreBackend.available) func aLongPollReturnsAsSoonAsAChangeArrivesAndEmptyAtItsTimeout(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            let started = ContinuousClock.now
            let empty = try json(try await client.execute(uri: "/changes?since=0&feed=longpoll&timeout=300", method: .get))
            #expect(ContinuousClock.now - started >= .milliseconds(250))
            #expect(empty["results"] == .array([]))
            async let polled = client.execute(uri: "/changes?since=0&feed=longpoll&timeout=30000", method: .get)
            try await Task.sleep(for: .milliseconds(200))
            let put = try await client.execute(
                uri: "/products/A", method: .put, headers: authorized, body: ByteBuffer(string: #"{"name": "a", "category": "c", "price": 1}"#))
            // From the write's commit, not its start: a loaded host may take seconds to write, and a missed wake-up
            // would wait for the poll's own timeout (30 s).
            let written = ContinuousClock.now
            #expect(put.status == .created)
            let result = try json(try await polled)
            #expect(ContinuousClock.now - written < .seconds(5))
            guard case .array(let results)? = result["results"] else { Issue.record("no results"); return }
            #expect(results.count == 1)
            #expect(results.first?["key"] == .string("A"))
            // A token ahead of the newest change (not this store's) waits for the next change from now.
            async let ahead = client.execute(uri: "/changes?since=9000000000000&feed=longpoll&timeout=30000", method: .get)
            try await Task.sleep(for: .milliseconds(200))
            _ = try await client.execute(
                uri: "/products/B", method: .put, headers: authorized, body: ByteBuffer(string: #"{"name": "b", "category": "c", "price": 1}"#))
            let nextWritten = ContinuousClock.now
            let next = try json(try await ahead)
            #expect(ContinuousClock.now - nextWritten < .seconds(5))
            guard case .array(let nextResults)? = next["results"] else { Issue.record("no results"); return }
            #expect(nextResults.first?["key"] == .string("B"))
            _ = components
        }
    }

    /// A `Last-Event-ID` is checked whatever the feed, as `timeout` is: a bad one is never silently ignored, and an
    /// empty one (an EventSource that has read no event sends none) is no position.
    @Test func aLastEventIDThatIsNoChangeTokenIsA400NamingItWhateverTheFeed() async throws {
        try await WriteHarness(backend: .sqlite).run { client, components in
            try await Self.seed(components.store, count: 2)
            for uri in ["/changes", "/changes?since=0", "/changes?feed=longpoll&timeout=0", "/changes?feed=eventsource"] {
                let response = try await client.execute(uri: uri, method: .get, headers: [.lastEventID: "<LE};-M"])
                #expect(response.status == .badRequest, "\(uri)")
                #expect(String(buffer: response.body).contains("Last-Event-ID must be a change token"), "\(uri)")
            }
            let empty = try json(try await client.execute(uri: "/changes?since=1", method: .get, headers: [.lastEventID: ""]))
            guard case .array(let results)? = empty["results"] else { Issue.record("no results"); return }
            #expect(results.count == 1)
        }
    }

    /// An empty `feed` or `entity` is absent, as every empty parameter is; an unknown one is a 400 naming it.
    @Test func anEmptyFeedOrEntityIsAbsentAndAnUnknownOneA400NamingIt() async throws {
        try await WriteHarness(backend: .sqlite).run { client, _ in
            for name in ["feed", "entity"] {
                let empty = try await client.execute(uri: "/changes?\(name)=&since=0", method: .get)
                #expect(empty.status == .ok, "\(name)")
                let unknown = try await client.execute(uri: "/changes?\(name)=bogus&since=0", method: .get)
                #expect(unknown.status == .badRequest, "\(name)")
                #expect(String(buffer: unknown.body).contains("\(name) must be"), "\(name)")
            }
        }
    }

    @Test(arguments: StoreBackend.available) func anEventStreamSendsEveryChangeAfterLastEventID(_ backend: StoreBackend) async throws {
        try await WriteHarness(backend: backend).run { client, components in
            try await Self.seed(components.store, count: 3)
            async let streamed = client.execute(uri: "/changes", method: .get, headers: [.accept: "text/event-stream", .lastEventID: "1"])
            try await Task.sleep(for: .milliseconds(300))
            _ = try await client.execute(uri: "/products/P0", method: .delete, headers: authorized)
            try await Task.sleep(for: .milliseconds(300))
            // Shutting the notifier down ends every stream, as graceful shutdown does.
            await components.notifier.shutDown()
            let response = try await streamed
            #expect(response.headers[.contentType] == "text/event-stream")
            let ids = String(buffer: response.body).split(separator: "\n").filter { $0.hasPrefix("id: ") }
            #expect(ids == ["id: 2", "id: 3", "id: 4"])
            #expect(String(buffer: response.body).contains(#""key":"P0","op":"delete","author":"token:bootstrap""#))
        }
    }

    @Test func aStreamThatFallsTooFarBehindIsToldWhereToResume() async throws {
        let harness = WriteHarness()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        let (_, components) = try await harness.build()
        try await Self.seed(components.store, count: 6)
        let router = Router()
        var changes = ChangesController<BasicRequestContext>(
            store: components.store, notifier: components.notifier, followers: components.metrics.followers)
        changes.maximumLag = 2
        changes.streamBatchSize = 1
        changes.addRoutes(to: router.group("changes"))
        try await Application(router: router).test(.router) { client in
            let response = try await client.execute(uri: "/changes?since=1", method: .get, headers: [.accept: "text/event-stream"])
            let body = String(buffer: response.body)
            #expect(body.contains("id: 2\n"))
            #expect(!body.contains("id: 3\n"))
            #expect(body.contains("event: lagging\ndata: {\"resume_from\": 2, \"pending\": 4}"))
        }
    }
}
