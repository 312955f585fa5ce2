import CatalogStore
import HTTPTypes
import Hummingbird

/// Builds JSON responses, and answers GETs with 304 when the client has the current bytes already.
enum JSONResponder {
    /// `response`, marked so that no cache on the way keeps it: it holds secrets or an administrator's view.
    static func unstored(_ response: Response) -> Response {
        var response = response
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// Answers a GET: checks `If-None-Match` against the current version before reading anything
    /// else, then renders with the version the read actually saw.
    /// Bodies of unchanged data come from `cache` without touching the store beyond its version, and so do
    /// their gzip forms, compressed the first time a client asks for one. A request without `If-None-Match` whose
    /// response the cache does not hold at any version is rendered at once: the version would answer nothing (on PostgreSQL,
    /// a round trip less for the first read of each URL).
    static func conditionalGET(
        _ request: Request, store: any CatalogStore, cache: ResponseCache?, baseURL: String, name: String,
        family: ResourceFamily, contentType: String = "application/json", render: () async throws -> (bytes: [UInt8], versions: StoreVersions)
    ) async throws -> Response {
        let acceptEncoding = AcceptEncoding(request.headers)
        let subject = EntityTag.Subject(family: name, request: request, baseURL: baseURL)
        if request.headers[.ifNoneMatch] == nil, !(cache?.holds(subject: subject.hash) ?? false) {
            // Nothing to answer from the current version alone: the read tells its own.
            return try await rendered(
                request, cache: cache, subject: subject, family: family, contentType: contentType, acceptEncoding: acceptEncoding,
                render: render)
        }
        let currentVersions = try await store.currentVersions()
        let current = EntityTag(version: currentVersions[family], subject: subject)
        // A gzip client can hold the gzip tag only of a body big enough to be compressed, and the tag pins those
        // bytes, so the tag it would get is known before the body is.
        let expected = current.encoded(gzip: acceptEncoding.prefersGzip)
        if expected.match(request) == .exact { return notModified(expected, seq: currentVersions.lastSeq) }
        if let body = cache?.body(for: current.value) {
            return try respond(
                request, body: body, tag: current, seq: currentVersions.lastSeq, acceptEncoding: acceptEncoding, cache: cache,
                contentType: contentType)
        }
        // Rendering also validates the request: `*` answers 304 only for a request that has a representation.
        return try await rendered(
            request, cache: cache, subject: subject, family: family, contentType: contentType, acceptEncoding: acceptEncoding,
            render: render)
    }

    /// The response of a body rendered afresh, kept in `cache` for the version the read saw.
    private static func rendered(
        _ request: Request, cache: ResponseCache?, subject: EntityTag.Subject, family: ResourceFamily, contentType: String,
        acceptEncoding: AcceptEncoding, render: () async throws -> (bytes: [UInt8], versions: StoreVersions)
    ) async throws -> Response {
        let (bytes, versions) = try await render()
        let tag = EntityTag(version: versions[family], subject: subject)
        let body = ByteBuffer(bytes: bytes)
        cache?.store(body, for: tag.value, subject: subject.hash, family: subject.family, version: versions[family])
        return try respond(
            request, body: body, tag: tag, seq: versions.lastSeq, acceptEncoding: acceptEncoding, cache: cache, contentType: contentType)
    }

    /// 200 with the body in the encoding the client prefers, or 304 when `If-None-Match` names that representation.
    private static func respond(
        _ request: Request, body: ByteBuffer, tag plainTag: EntityTag, seq: Int64, acceptEncoding: AcceptEncoding, cache: ResponseCache?,
        contentType: String
    ) throws -> Response {
        let gzip = GzipEncoding.applies(to: body, for: acceptEncoding)
        let tag = plainTag.encoded(gzip: gzip)
        if tag.match(request) != .none { return notModified(tag, seq: seq) }
        var headers: HTTPFields = [.catalogSeq: String(seq)]
        GzipEncoding.setHeaders(&headers, gzip: gzip)
        guard gzip else { return json(body, tag: tag, headers: headers, contentType: contentType) }
        // Without a cache entry (the cache off, or a body too big for it) the body is compressed for this request only.
        let compressed = try cache?.gzipBody(for: plainTag.value, plain: body, compress: GzipEncoding.compress) ?? GzipEncoding.compress(body)
        return json(compressed, tag: tag, headers: headers, contentType: contentType)
    }

    private static func notModified(_ tag: EntityTag, seq: Int64) -> Response {
        Response(status: .notModified, headers: [.eTag: tag.value, .catalogSeq: String(seq), .vary: GzipEncoding.vary])
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

    static func json(
        _ body: ByteBuffer, tag: EntityTag? = nil, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:],
        contentType: String = "application/json"
    ) -> Response {
        var headers = headers
        headers[.contentType] = contentType
        if let tag { headers[.eTag] = tag.value }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

extension HTTPField.Name {
    /// The change token the response reflects: a client that re-lists resumes `GET /changes?since=` from it.
    static let catalogSeq = HTTPField.Name("X-Catalog-Seq")!
}
