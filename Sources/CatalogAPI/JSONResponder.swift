import CatalogModel
import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird

/// Entity tags for GET responses and the `If-None-Match` check.
///
/// A tag is a hash of the resource family's store version and everything else that shapes the bytes
/// (path, query, base URL), so it changes exactly when the response would.
struct EntityTag {
    let value: String

    init(version: Int64, family: String, request: Request, baseURL: String) {
        // FNV-1a over "family:version:base:uri", fed part by part rather than built as one string per request.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String) {
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        for (position, part) in [family, String(version), baseURL, request.uri.string].enumerated() {
            if position > 0 { mix(":") }
            mix(part)
        }
        value = "\"\(family)-\(version)-\(String(hash, radix: 16))\""
    }

    private init(value: String) {
        self.value = value
    }

    /// The tag of the same bytes sent gzip-compressed: another representation, so another tag (RFC 9110, 8.8.3),
    /// and a client holding one is never told by a 304 that it has the other.
    var gzipped: EntityTag { EntityTag(value: String(value.dropLast()) + "-gzip\"") }

    /// This tag, or its gzip form when `gzip` is true.
    func encoded(gzip: Bool) -> EntityTag { gzip ? gzipped : self }

    enum Match {
        case none
        /// `If-None-Match` names this tag: the client has these bytes.
        case exact
        /// `If-None-Match: *`: any current representation matches, once the request is known to have one.
        case any
    }

    /// How `If-None-Match` relates to this tag; weak comparison and lists as RFC 9110 says.
    func match(_ request: Request) -> Match {
        var sawAny = false
        for header in request.headers[values: .ifNoneMatch] {
            for candidate in header.split(separator: ",") {
                var tag = candidate.trimmingCharacters(in: .whitespaces)
                if tag == "*" { sawAny = true }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }
                if tag == value { return .exact }
            }
        }
        return sawAny ? .any : .none
    }
}

extension HTTPField.Name {
    /// The change token the response reflects: a client that re-lists resumes `GET /changes?since=` from it.
    static let catalogSeq = HTTPField.Name("X-Catalog-Seq")!
}

/// Builds JSON responses, and answers GETs with 304 when the client has the current bytes already.
enum JSONResponder {
    /// Answers a GET: checks `If-None-Match` against the current version before reading anything
    /// else, then renders with the version the read actually saw.
    /// Bodies of unchanged data come from `cache` without touching the store beyond its version, and so do
    /// their gzip forms, compressed the first time a client asks for one.
    static func conditionalGET(
        _ request: Request, store: CatalogStore, cache: ResponseCache?, baseURL: String, family: String,
        version: KeyPath<StoreVersions, Int64>, render: () async throws -> (bytes: [UInt8], versions: StoreVersions)
    ) async throws -> Response {
        let acceptEncoding = AcceptEncoding(request.headers)
        let currentVersions = try store.currentVersions()
        let current = EntityTag(version: currentVersions[keyPath: version], family: family, request: request, baseURL: baseURL)
        // A gzip client can hold the gzip tag only of a body big enough to be compressed, and the tag pins those
        // bytes, so the tag it would get is known before the body is.
        let expected = current.encoded(gzip: acceptEncoding.prefersGzip)
        if expected.match(request) == .exact { return notModified(expected, seq: currentVersions.lastSeq) }
        if let body = cache?.body(for: current.value) {
            return try respond(request, body: body, tag: current, seq: currentVersions.lastSeq, acceptEncoding: acceptEncoding, cache: cache)
        }
        // Rendering also validates the request: `*` answers 304 only for a request that has a representation.
        let (bytes, versions) = try await render()
        let rendered = EntityTag(version: versions[keyPath: version], family: family, request: request, baseURL: baseURL)
        let body = ByteBuffer(bytes: bytes)
        cache?.store(body, for: rendered.value, family: family, version: versions[keyPath: version])
        return try respond(request, body: body, tag: rendered, seq: versions.lastSeq, acceptEncoding: acceptEncoding, cache: cache)
    }

    /// 200 with the body in the encoding the client prefers, or 304 when `If-None-Match` names that representation.
    private static func respond(
        _ request: Request, body: ByteBuffer, tag plainTag: EntityTag, seq: Int64, acceptEncoding: AcceptEncoding, cache: ResponseCache?
    ) throws -> Response {
        let gzip = GzipEncoding.applies(to: body, for: acceptEncoding)
        let tag = plainTag.encoded(gzip: gzip)
        if tag.match(request) != .none { return notModified(tag, seq: seq) }
        var headers: HTTPFields = [.catalogSeq: String(seq)]
        GzipEncoding.setHeaders(&headers, gzip: gzip)
        guard gzip else { return json(body, tag: tag, headers: headers) }
        // Without a cache entry (the cache off, or a body too big for it) the body is compressed for this request only.
        let compressed = try cache?.gzipBody(for: plainTag.value, plain: body, compress: GzipEncoding.compress) ?? GzipEncoding.compress(body)
        return json(compressed, tag: tag, headers: headers)
    }

    private static func notModified(_ tag: EntityTag, seq: Int64) -> Response {
        Response(status: .notModified, headers: [.eTag: tag.value, .catalogSeq: String(seq), .vary: "Accept-Encoding"])
    }

    /// A JSON response compressed when the client accepts gzip and the body is big enough; for bodies made
    /// afresh for every request, which no cache could hold (a page of the change feed).
    static func negotiatedJSON(_ request: Request, bytes: [UInt8], headers: HTTPFields = [:]) throws -> Response {
        let body = ByteBuffer(bytes: bytes)
        var headers = headers
        let gzip = GzipEncoding.applies(to: body, for: AcceptEncoding(request.headers))
        GzipEncoding.setHeaders(&headers, gzip: gzip)
        return json(gzip ? try GzipEncoding.compress(body) : body, headers: headers)
    }

    static func json(_ bytes: [UInt8], tag: EntityTag? = nil, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        json(ByteBuffer(bytes: bytes), tag: tag, status: status, headers: headers)
    }

    static func json(_ body: ByteBuffer, tag: EntityTag? = nil, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        if let tag { headers[.eTag] = tag.value }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

/// The GET handlers of one resource family: conditional on its version, rendered for the request's base URL.
struct ResourceReads: Sendable {
    let store: CatalogStore
    let urls: RequestURLs
    /// Names the family in ETags.
    let family: String
    let version: any KeyPath<StoreVersions, Int64> & Sendable
    let cache: ResponseCache

    /// A page of the list in the envelope.
    func list<Row: Sendable>(
        _ request: Request, fetch: () async throws -> Page<Row>, render: (Representations) -> (Row, inout JSONWriter) -> Void
    ) async throws -> Response {
        let representations = Representations(base: urls.base(for: request))
        return try await JSONResponder.conditionalGET(
            request, store: store, cache: cache, baseURL: representations.base, family: family, version: version
        ) {
            let page = try await fetch()
            return (representations.envelope(page, request: request, render: render(representations)), page.versions)
        }
    }

    /// One row, or 404 with `notFound` as the detail.
    func item<Row>(
        _ request: Request, notFound: String, fetch: () async throws -> (Row?, StoreVersions),
        render: (Representations) -> (Row, inout JSONWriter) -> Void
    ) async throws -> Response {
        let representations = Representations(base: urls.base(for: request))
        return try await JSONResponder.conditionalGET(
            request, store: store, cache: cache, baseURL: representations.base, family: family, version: version
        ) {
            let (row, versions) = try await fetch()
            guard let row else { throw Problem.notFound(notFound) }
            let write = render(representations)
            return (Representations.single { write(row, &$0) }, versions)
        }
    }
}
