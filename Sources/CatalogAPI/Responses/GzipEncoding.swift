import CompressNIO
import HTTPTypes
import Hummingbird

/// gzip for response bodies: which bodies are worth it, the compression itself, and the headers that go with it.
enum GzipEncoding {
    /// Bodies smaller than this are sent plain: below about a kilobyte gzip saves less than a packet while
    /// its header, trailer and the CPU it costs stay the same (an item, a small category list, an error).
    static let minimumBytes = 1024

    /// Whether to send `body` compressed to a client that asked as `acceptEncoding` says.
    static func applies(to body: ByteBuffer, for acceptEncoding: AcceptEncoding) -> Bool {
        acceptEncoding.prefersGzip && body.readableBytes >= minimumBytes
    }

    /// The gzip member (RFC 1952) of `body`, at zlib's default level: JSON shrinks about 5 to 10 times, and
    /// a cached page is compressed only once, so a faster level would save little.
    static func compress(_ body: ByteBuffer) throws -> ByteBuffer {
        var input = body
        let compressed = try input.compress(with: .gzip())
        // The output buffer was sized for the worst case, about the input's size: copied to its own size, a cached
        // gzip body holds the memory the cache counts for it.
        return ByteBuffer(bytes: compressed.readableBytesView)
    }

    /// What a GET's body varies with: its encoding, and whether it is JSON or a page (`ResponseFormat`).
    static let vary = "Accept, Accept-Encoding"

    /// Marks a response whose body varies with `Accept-Encoding` and `Accept`, and names the encoding when it is gzip.
    static func setHeaders(_ headers: inout HTTPFields, gzip: Bool) {
        headers[.vary] = vary
        if gzip { headers[.contentEncoding] = "gzip" }
    }
}
