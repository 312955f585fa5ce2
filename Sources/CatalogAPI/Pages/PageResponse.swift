import Hummingbird

/// The answers of pages that are not read through `ResourceReads.page`.
enum PageResponse {
    static let contentType = "text/html; charset=utf-8"

    /// A page made afresh for each request (it reads several families of the store, or the newest changes).
    static func uncached(_ bytes: [UInt8]) -> Response {
        var headers = PageSecurity.headers
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-cache"
        headers[.vary] = GzipEncoding.vary
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A redirect that a page answers with to the clean form of its own URL (`PageURLs.canonical`).
    static func redirect(to location: String) -> Response {
        var headers = PageSecurity.headers
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }
}
