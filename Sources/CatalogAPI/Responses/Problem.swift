import CatalogModel
import Hummingbird

/// An error the client caused or should know about, rendered as RFC 9457 `application/problem+json`.
public struct Problem: Error, Sendable {
    public var status: HTTPResponse.Status
    /// A short, stable slug; the `type` URI is built from it.
    public var type: String
    public var detail: String
    public var headers: HTTPFields
    /// Extra members, such as the id of the import already running.
    public var extensions: [(String, JSONValue)]

    public init(_ status: HTTPResponse.Status, type: String, detail: String, headers: HTTPFields = [:], extensions: [(String, JSONValue)] = []) {
        self.status = status
        self.type = type
        self.detail = detail
        self.headers = headers
        self.extensions = extensions
    }

    public static func badParameter(_ name: String, _ detail: String) -> Problem {
        Problem(.badRequest, type: "invalid-parameter", detail: detail, extensions: [("parameter", .string(name))])
    }

    public static func notFound(_ detail: String) -> Problem {
        Problem(.notFound, type: "not-found", detail: detail)
    }

    /// The body and headers of the problem.
    func response() -> Response {
        var writer = JSONWriter(capacity: 256)
        writer.objectStart()
        writer.member("type", "https://catalogd.dev/problems/\(type)")
        writer.member("title", status.reasonPhrase)
        writer.member("status", status.code)
        writer.member("detail", detail)
        for (name, value) in extensions {
            writer.key(name)
            writer.value(value)
        }
        writer.objectEnd()
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: writer.bytes)))
    }
}
