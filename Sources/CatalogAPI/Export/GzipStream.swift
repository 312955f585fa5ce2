import CompressNIO
import NIOCore

/// One gzip member over a body sent in parts (an export): each part is compressed as it comes, and what zlib holds
/// back goes out with a later part or at the end.
final class GzipStream {
    private let compressor: any NIOCompressor

    init() throws {
        compressor = CompressionAlgorithm.gzip().compressor
        compressor.window = ByteBufferAllocator().buffer(capacity: 64 * 1024)
        try compressor.startStream()
    }

    /// The compressed bytes of `part` that are ready; with `last`, all that is left, ending the member.
    func compress(_ part: [UInt8], last: Bool = false) throws -> ByteBuffer {
        var input = ByteBuffer(bytes: part)
        var output = ByteBuffer()
        try input.compressStream(with: compressor, flush: last ? .finish : .no) { ready in output.writeImmutableBuffer(ready) }
        if last { try compressor.finishStream() }
        return output
    }
}
