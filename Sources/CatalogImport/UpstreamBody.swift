import CatalogModel
import Crypto
import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A successful response. Bodies over `spoolThreshold` are kept in a temporary file rather than in memory.
public struct UpstreamBody: Sendable {
    public static let spoolThreshold = 8 * 1024 * 1024
    static let chunkSize = 1024 * 1024

    public enum Content: Sendable {
        case bytes([UInt8])
        /// A file holding the body; `temporary` ones are deleted by `discard()`.
        case file(path: String, temporary: Bool)
    }

    public var content: Content
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
    /// The SHA-256 of the body as received (lowercase hex), taken while it arrived; nil for a file the feed names.
    public var digest: String?

    public init(content: Content, etag: String? = nil, lastModified: String? = nil, contentType: String? = nil, digest: String? = nil) {
        self.content = content
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.digest = digest
    }

    /// The whole body, for formats that can only be parsed as one document; a body over `limit` bytes is refused
    /// with a reason naming the option that raises it.
    public func bytes(limit: Int) throws -> [UInt8] {
        let size: Int
        switch content {
        case .bytes(let bytes): size = bytes.count
        case .file(let path, _): size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        }
        guard size <= limit else {
            throw FeedError(
                "the document is \(size) bytes, over the \(limit)-byte limit for a JSON document (raise it with --upstream-max-body, "
                    + "CATALOG_UPSTREAM_MAX_BODY; an NDJSON listing is read line by line and has no such limit)")
        }
        switch content {
        case .bytes(let bytes): return bytes
        case .file(let path, _): return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }

    /// Hands the body over in chunks of at most `chunkSize` bytes, so it never needs to be in memory whole.
    public func forEachChunk(_ body: ([UInt8]) async throws -> Void) async throws {
        switch content {
        case .bytes(let bytes):
            try await body(bytes)
        case .file(let path, _):
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            while let data = try handle.read(upToCount: Self.chunkSize), !data.isEmpty {
                try await body(Array(data))
            }
        }
    }

    /// Deletes a temporary body file.
    public func discard() {
        if case .file(let path, true) = content { try? FileManager.default.removeItem(atPath: path) }
    }
}
