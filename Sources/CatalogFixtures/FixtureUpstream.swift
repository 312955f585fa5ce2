import CatalogModel
import Foundation
import Hummingbird
import Logging

/// Faults the fake upstream can be told to show, switchable while it runs.
public struct FixtureFaults: Sendable {
    /// 1-based page answered with `failStatus` (films: `?page=`; products: `skip / limit + 1`).
    public var failPage: Int?
    public var failStatus: Int
    /// The first this many requests are answered 429 with `Retry-After: 1`.
    public var rateLimitFirst: Int
    /// Sleep before each response.
    public var delayMilliseconds: Int
    /// Bodies are cut in half: valid HTTP, truncated JSON.
    public var truncateBody: Bool
    /// Products (0-based positions) sent with a negative price.
    public var invalidRecords: [Int]
    public var disableETags: Bool
    /// Products pages hold at most this many, whatever `limit` asked for (as public feeds cap it).
    public var maximumPageSize: Int?

    public init(
        failPage: Int? = nil, failStatus: Int = 500, rateLimitFirst: Int = 0, delayMilliseconds: Int = 0, truncateBody: Bool = false,
        invalidRecords: [Int] = [], disableETags: Bool = false, maximumPageSize: Int? = nil
    ) {
        self.failPage = failPage
        self.failStatus = failStatus
        self.rateLimitFirst = rateLimitFirst
        self.delayMilliseconds = delayMilliseconds
        self.truncateBody = truncateBody
        self.invalidRecords = invalidRecords
        self.disableETags = disableETags
        self.maximumPageSize = maximumPageSize
    }
}

/// One request the fake upstream answered.
public struct FixtureRequest: Sendable {
    public var path: String
    public var query: String?
    public var ifNoneMatch: String?
    public var status: Int
}

/// A SWAPI- and DummyJSON-shaped upstream on a loopback port, for tests, the demo and benchmarks.
///
/// Routes: `/api/films/` (SWAPI pages, `?page=`, `?page_size=`, default 3), `/products` (DummyJSON, `?limit=&skip=`,
/// default limit 30, 0 for all), `/products.json` (one array), `/products.ndjson`. Every 200 has a strong ETag and
/// honours `If-None-Match` with 304. `/_fixtures/connections` tells how many TCP connections were accepted
/// (`{"accepted": N, "open": M}`, the asking connection included).
public actor FixtureUpstream {
    public static let defaultFilmsPageSize = 3
    public static let defaultProductsLimit = 30

    private var catalog: FixtureCatalog
    private var faults: FixtureFaults
    private var requests: [FixtureRequest] = []
    private var requestCount = 0
    private var server: Task<Void, any Error>?
    /// Every connection accepted, counted as the server accepts it.
    public nonisolated let connections = FixtureConnectionCounter()
    /// Bodies already rendered, with their ETags, by URL and Host: a conditional request is answered
    /// without rendering, as a real feed's cache would.
    private var rendered: [String: (body: [UInt8], etag: String)] = [:]

    public init(catalog: FixtureCatalog, faults: FixtureFaults = FixtureFaults()) {
        self.catalog = catalog
        self.faults = faults
    }

    public func setCatalog(_ catalog: FixtureCatalog) {
        self.catalog = catalog
        rendered = [:]
    }

    public func setFaults(_ faults: FixtureFaults) {
        self.faults = faults
        rendered = [:]
    }
    public func requestLog() -> [FixtureRequest] { requests }
    public func resetRequestLog() { requests = [] }

    /// Serves on `host:port` (0: any free port) and returns the bound port once connections are accepted.
    public func start(host: String = "127.0.0.1", port: Int = 0, logger: Logger = Logger(label: "catalog-fixtures")) async throws -> Int {
        let router = Router()
        router.get("/api/films", use: films)
        router.get("/products", use: pagedProducts)
        router.get("/products.json", use: arrayProducts)
        router.get("/products.ndjson", use: ndjsonProducts)
        let connections = self.connections
        router.get("/_fixtures/connections") { _, _ in
            let body = #"{"accepted": \#(connections.accepted), "open": \#(connections.open)}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        let (bound, continuation) = AsyncStream.makeStream(of: Int.self)
        var quiet = logger
        // Stopping cancels the server, which Hummingbird logs as an error; nothing else here is worth a line.
        quiet.logLevel = .critical
        let application = Application(
            router: router, server: .http1(configuration: .init(additionalChannelHandlers: [connections.handler()])),
            configuration: .init(address: .hostname(host, port: port), serverName: "catalog-fixtures"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: quiet)
        server = Task { try await application.run() }
        for await port in bound { return port }
        throw CancellationError()
    }

    /// Stops serving; in-flight requests are cut.
    public func stop() async {
        server?.cancel()
        _ = await server?.result
        server = nil
    }

    @Sendable private func films(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let page = query["page"].flatMap { Int($0) } ?? 1
        let pageSize = max(1, query["page_size"].flatMap { Int($0) } ?? Self.defaultFilmsPageSize)
        let snapshot = catalog
        let lastPage = max(1, (snapshot.films.count + pageSize - 1) / pageSize)
        guard (1...lastPage).contains(page) else {
            let body = Array(#"{"detail":"Not found"}"#.utf8)
            return await answer(request, status: 404, content: (body, Self.entityTag(body)), page: page)
        }
        let slice = snapshot.films[min((page - 1) * pageSize, snapshot.films.count)..<min(page * pageSize, snapshot.films.count)]
        let content = render(request) {
            FixtureJSON.filmsPage(slice, count: snapshot.films.count, page: page, lastPage: lastPage, base: Self.base(of: request))
        }
        return await answer(request, status: 200, content: content, page: page)
    }

    @Sendable private func pagedProducts(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let skip = max(0, query["skip"].flatMap { Int($0) } ?? 0)
        let requested = max(0, query["limit"].flatMap { Int($0) } ?? Self.defaultProductsLimit)
        let limit = min(requested == 0 ? catalog.products.count : requested, faults.maximumPageSize ?? .max)
        let content = render(request) { FixtureJSON.productsPage(catalog, skip: skip, limit: limit, invalid: Set(faults.invalidRecords)) }
        return await answer(request, status: 200, content: content, page: limit == 0 ? 1 : skip / max(limit, 1) + 1)
    }

    @Sendable private func arrayProducts(_ request: Request, context: BasicRequestContext) async throws -> Response {
        await answer(
            request, status: 200, content: render(request) { FixtureJSON.productsArray(catalog, invalid: Set(faults.invalidRecords)) }, page: 1)
    }

    @Sendable private func ndjsonProducts(_ request: Request, context: BasicRequestContext) async throws -> Response {
        await answer(
            request, status: 200, content: render(request) { FixtureJSON.productsNDJSON(catalog, invalid: Set(faults.invalidRecords)) },
            page: 1, contentType: "application/x-ndjson")
    }

    /// The body for this request and its ETag, rendered once.
    private func render(_ request: Request, body: () -> [UInt8]) -> (body: [UInt8], etag: String) {
        let key = "\(request.head.authority ?? "")\(request.uri.string)"
        if let known = rendered[key] { return known }
        let made = body()
        let content = (made, Self.entityTag(made))
        rendered[key] = content
        return content
    }

    /// Applies the faults, the ETag check and the request log to one answer.
    private func answer(
        _ request: Request, status: Int, content: (body: [UInt8], etag: String), page: Int, contentType: String = "application/json"
    ) async -> Response {
        var body = content.body
        requestCount += 1
        let faults = self.faults
        if faults.delayMilliseconds > 0 {
            try? await Task.sleep(for: .milliseconds(faults.delayMilliseconds))
        }
        var headers = HTTPFields()
        headers[.contentType] = contentType
        var status = status
        if requestCount <= faults.rateLimitFirst {
            status = 429
            headers[.retryAfter] = "1"
            body = Array(#"{"message":"slow down"}"#.utf8)
        } else if status == 200, faults.failPage == page {
            status = faults.failStatus
            body = Array(#"{"message":"upstream failure"}"#.utf8)
        } else if status == 200, !faults.disableETags {
            let etag = content.etag
            headers[.eTag] = etag
            headers[.lastModified] = "Wed, 01 Jan 2025 00:00:00 GMT"
            if request.headers[.ifNoneMatch] == etag {
                status = 304
                body = []
            }
        }
        if status == 200, faults.truncateBody {
            body = Array(body.prefix(body.count / 2))
        }
        requests.append(FixtureRequest(path: request.uri.path, query: request.uri.query, ifNoneMatch: request.headers[.ifNoneMatch], status: status))
        return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// FNV-1a over the body: strong, and the same for the same bytes.
    static func entityTag(_ body: [UInt8]) -> String {
        var hash = FNV1a()
        hash.combine(body)
        return "\"\(String(hash.value, radix: 16))\""
    }

    static func base(of request: Request) -> String {
        "http://\(request.head.authority ?? "127.0.0.1")"
    }
}
