import Hummingbird
import NIOCore

/// Reading request bodies with a size limit.
enum BodyReader {
    /// Collects the body with Hummingbird's `collectBody(upTo:)`, answering 413 when it passes `limit`; a body
    /// whose declared length is over `limit` is answered 413 before any of it is read.
    /// (A body that trickles in is cut off by `RequestBodyDeadline`, for every route at once.)
    static func collect(_ request: Request, limit: Int) async throws -> [UInt8] {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw Problem(.contentTooLarge, type: "body-too-large", detail: "the body is \(declared) bytes; the limit is \(limit)")
        }
        var request = request
        do {
            return Array(try await request.collectBody(upTo: limit).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw Problem(.contentTooLarge, type: "body-too-large", detail: "the body is over the \(limit)-byte limit")
        }
    }
}
