import CatalogModel
import Crypto
import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How patient and how trusting the upstream client is. Every value has a default that works against public APIs.
public struct UpstreamPolicy: Sendable {
    /// Longest wait for one response.
    public var requestTimeout: Duration = .seconds(30)
    /// Longest a whole run (all pages, all retries) may take.
    public var runTimeout: Duration = .seconds(600)
    /// Tries per page, the first included, on connection errors, 429 and 5xx.
    public var maximumAttempts = 4
    /// First retry delay; doubled each time, with up to 50% jitter, capped by `maximumBackoff`.
    public var initialBackoff: Duration = .milliseconds(500)
    public var maximumBackoff: Duration = .seconds(30)
    /// A JSON document (a page, or a listing as one array) larger than this fails the run. An NDJSON listing, read
    /// line by line, is not capped as a whole: its lines are, by `maximumLineBytes`.
    public var maximumResponseBytes = 256 * 1024 * 1024
    /// Longest line of an NDJSON listing.
    public var maximumLineBytes = NDJSONDecoder.defaultMaximumLineBytes
    /// Largest number of pages one listing may have; guards against a `next` chain that never ends.
    public var maximumPages = 100_000

    public init() {}
}

/// What the upstream answered for one page.
public enum UpstreamAnswer: Sendable {
    /// 304: the page is what it was when it had the ETag we sent.
    case notModified
    case body(UpstreamBody)
}

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

/// Why a page could not be fetched: names the URL, the page and the cause.
public struct UpstreamError: Error, Sendable, CustomStringConvertible {
    public var url: String
    public var page: Int
    public var cause: String

    public var description: String { "page \(page) (\(url)): \(cause)" }
}

/// Fetches feed pages over HTTP(S), or from files for `file://` URLs and plain paths.
public struct UpstreamClient: Sendable {
    public let policy: UpstreamPolicy
    let logger: Logger
    /// The session the requests share, inside `withSharedConnections`; otherwise each request has its own.
    private var connections: UpstreamConnections?

    public init(policy: UpstreamPolicy = UpstreamPolicy(), logger: Logger) {
        self.policy = policy
        self.logger = logger
    }

    /// Runs `body` with a client whose requests share one session, so the pages of a run reuse connections
    /// (and TLS sessions) rather than opening one each; the session and its connections are closed when `body` ends.
    public func withSharedConnections<T>(_ body: (UpstreamClient) async throws -> T) async rethrows -> T {
        let connections = UpstreamConnections()
        defer { connections.invalidate() }
        var client = self
        client.connections = connections
        return try await body(client)
    }

    /// Whether a Content-Type may hold a JSON or NDJSON feed: any `json` type (`application/json`,
    /// `application/x-ndjson`, `…+json`), or `text/plain`, which some servers send for JSON files.
    static func isJSON(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type.contains("json") || type == "text/plain"
    }

    /// Whether a Content-Type names a newline-delimited JSON body (`application/x-ndjson`, `application/jsonl`).
    static func isNDJSON(_ contentType: String) -> Bool {
        let type = contentType.lowercased()
        return type.contains("ndjson") || type.contains("jsonl")
    }

    /// Fetches one page, retrying transient failures; `deadline` bounds the whole run.
    public func fetch(
        _ location: String, page: Int, etag: String?, lastModified: String?, deadline: ContinuousClock.Instant
    ) async throws -> UpstreamAnswer {
        guard let url = Self.url(location) else {
            throw UpstreamError(url: location, page: page, cause: "not a URL or a file path")
        }
        if url.isFileURL { return try readFile(url, page: page) }
        guard url.scheme == "http" || url.scheme == "https" else {
            throw UpstreamError(url: location, page: page, cause: "unsupported scheme '\(url.scheme ?? "")'; use http, https or file")
        }
        var attempt = 1
        var backoff = policy.initialBackoff
        while true {
            try Task.checkCancellation()
            let outcome = await attemptFetch(url, etag: etag, lastModified: lastModified)
            let retryAfter: Duration?
            switch outcome {
            case .answer(let answer):
                return answer
            case .permanent(let cause):
                throw UpstreamError(url: location, page: page, cause: cause)
            case .transient(let cause, let suggested):
                guard attempt < policy.maximumAttempts else {
                    throw UpstreamError(url: location, page: page, cause: "\(cause) (gave up after \(attempt) attempts)")
                }
                retryAfter = suggested
                let jitter = backoff * Double.random(in: 0...0.5)
                let delay = min(retryAfter ?? (backoff + jitter), policy.maximumBackoff)
                guard ContinuousClock.now + delay < deadline else {
                    throw UpstreamError(url: location, page: page, cause: "\(cause); no time left in the run to retry")
                }
                let milliseconds = Int(delay.timeInterval * 1000)
                let retry = "retry \(attempt) of \(policy.maximumAttempts - 1) in \(milliseconds) ms"
                logger.warning("upstream page \(page) (\(location)): \(cause); \(retry)")
                try await Task.sleep(for: delay)
                backoff = min(backoff * 2, policy.maximumBackoff)
                attempt += 1
            }
        }
    }

    /// A location as a URL: absolute URLs as they are, anything else as a file path.
    static func url(_ location: String) -> URL? {
        if location.contains("://") { return URL(string: location) }
        guard !location.isEmpty else { return nil }
        return URL(fileURLWithPath: location)
    }

    private func readFile(_ url: URL, page: Int) throws -> UpstreamAnswer {
        do {
            // No size check here: a JSON document is checked when it is read whole, an NDJSON listing line by line.
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw UpstreamError(url: url.path, page: page, cause: "cannot read the file")
            }
            return .body(UpstreamBody(content: .file(path: url.path, temporary: false), etag: nil, lastModified: nil, contentType: nil))
        } catch let error as UpstreamError {
            throw error
        } catch {
            throw UpstreamError(url: url.path, page: page, cause: "cannot read the file: \(error.localizedDescription)")
        }
    }

    enum Outcome {
        case answer(UpstreamAnswer)
        case transient(String, retryAfter: Duration?)
        case permanent(String)
    }

    private func attemptFetch(_ url: URL, etag: String?, lastModified: String?) async -> Outcome {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: policy.requestTimeout.timeInterval)
        request.setValue("application/json, application/x-ndjson;q=0.9, */*;q=0.1", forHTTPHeaderField: "Accept")
        request.setValue("catalogd", forHTTPHeaderField: "User-Agent")
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        let shared = connections
        let connections = shared ?? UpstreamConnections()
        defer { if shared == nil { connections.invalidate() } }
        let result: BoundedDownload.Result
        do {
            result = try await BoundedDownload.run(request, on: connections, limit: policy.maximumResponseBytes, timeout: policy.requestTimeout)
        } catch let error as BoundedDownload.TooLarge {
            return .permanent(
                "response is larger than the \(error.limit)-byte limit for a JSON document (raise it with --upstream-max-body, "
                    + "CATALOG_UPSTREAM_MAX_BODY; an NDJSON listing, sent as application/x-ndjson, is read line by line and has no such limit)")
        } catch is BoundedDownload.TimedOut {
            return .transient("no complete response within \(policy.requestTimeout)", retryAfter: nil)
        } catch is CancellationError {
            return .permanent("cancelled")
        } catch {
            return .transient("connection failed: \(error.localizedDescription)", retryAfter: nil)
        }
        let response = result.response
        let header = { (name: String) in response.value(forHTTPHeaderField: name) }
        switch response.statusCode {
        case 200..<300:
            if let contentType = header("Content-Type"), !Self.isJSON(contentType) {
                UpstreamBody(content: result.body).discard()
                return .permanent("the upstream sent \(contentType), not JSON")
            }
            return .answer(
                .body(
                    UpstreamBody(
                        content: result.body, etag: header("ETag"), lastModified: header("Last-Modified"), contentType: header("Content-Type"),
                        digest: result.digest)))
        case 304:
            UpstreamBody(content: result.body).discard()
            return .answer(.notModified)
        case 429, 500..<600:
            UpstreamBody(content: result.body).discard()
            let retryAfter = header("Retry-After").flatMap(Int.init).map { Duration.seconds(max(0, $0)) }
            return .transient("HTTP \(response.statusCode)", retryAfter: retryAfter)
        default:
            UpstreamBody(content: result.body).discard()
            return .permanent("HTTP \(response.statusCode)")
        }
    }
}

/// One HTTP exchange whose body is cut off at a byte limit instead of being buffered whole.
///
/// `URLSession.data(for:)` would read a 2 GB body into memory before we could look at its size; a data
/// delegate sees the bytes as they arrive and cancels the task once the limit is passed.
enum BoundedDownload {
    struct Result {
        var response: HTTPURLResponse
        var body: UpstreamBody.Content
        /// The body's SHA-256, lowercase hex.
        var digest: String
    }

    struct TooLarge: Error {
        var limit: Int
    }

    struct TimedOut: Error {}

    /// `timeout` bounds the whole exchange; URLSession's own timeout on Linux only counts whole idle seconds.
    static func run(_ request: URLRequest, on connections: UpstreamConnections, limit: Int, timeout: Duration) async throws -> Result {
        let delegate = Delegate(limit: limit)
        let timer = Task {
            try await Task.sleep(for: timeout)
            delegate.cancel(because: TimedOut())
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                do {
                    delegate.start(try connections.dataTask(with: request, reportingTo: delegate), continuation: continuation)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            delegate.cancel(because: CancellationError())
        }
    }

    /// One exchange's state, touched from the session's delegate queue (through `UpstreamConnections`) and from
    /// cancellation; the lock serialises both.
    final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var limit: Int
        private var body: [UInt8] = []
        private var received = 0
        private var hasher = SHA256()
        /// Where the body goes once it passes `UpstreamBody.spoolThreshold`.
        private var spool: (path: String, handle: FileHandle)?
        private var task: URLSessionDataTask?
        private var continuation: CheckedContinuation<Result, any Error>?
        private var failure: (any Error)?

        init(limit: Int) {
            self.limit = limit
        }

        func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<Result, any Error>) {
            let cancelledAlready = lock.withLock {
                self.task = task
                self.continuation = continuation
                return failure != nil
            }
            task.resume()
            if cancelledAlready { task.cancel() }
        }

        func cancel(because reason: any Error) {
            let task = lock.withLock {
                failure = failure ?? reason
                return self.task
            }
            task?.cancel()
        }

        /// A body announced larger than the limit is refused before any of it is read. An NDJSON body is not
        /// limited as a whole: it is spooled to a file and read line by line, each line limited on its own.
        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            let isNDJSON = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type").map(UpstreamClient.isNDJSON) ?? false
            if isNDJSON { lock.withLock { limit = .max } }
            guard response.expectedContentLength > Int64(limit) else { return completionHandler(.allow) }
            lock.withLock { failure = failure ?? TooLarge(limit: limit) }
            completionHandler(.cancel)
            // FoundationNetworking ignores the disposition. Cancelling the task takes its transfer out of libcurl
            // mid-body, and libcurl closes a connection with a partial response rather than keep it: the other
            // requests of the session go on, and the rest of the body is never read.
            dataTask.cancel()
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let stop = lock.withLock {
                received += data.count
                if received > limit {
                    failure = failure ?? TooLarge(limit: limit)
                    body = []
                    return true
                }
                hasher.update(data: data)
                do {
                    if let spool {
                        try spool.handle.write(contentsOf: data)
                    } else {
                        body.append(contentsOf: data)
                        if body.count > UpstreamBody.spoolThreshold { try startSpooling() }
                    }
                } catch {
                    failure = failure ?? error
                    return true
                }
                return false
            }
            if stop { dataTask.cancel() }
        }

        /// Moves the body received so far into a temporary file; called with the lock held.
        private func startSpooling() throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-body-\(UUID().uuidString)").path
            guard FileManager.default.createFile(atPath: path, contents: Data(body)) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            spool = (path, handle)
            body = []
        }

        /// The body as received: in memory, or in the spool file (closed here); a failed exchange deletes the file.
        private func takeBody(keep: Bool) -> UpstreamBody.Content {
            guard let spool else { return .bytes(body) }
            try? spool.handle.close()
            self.spool = nil
            if !keep { try? FileManager.default.removeItem(atPath: spool.path) }
            return .file(path: spool.path, temporary: true)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let (continuation, outcome): (CheckedContinuation<Result, any Error>?, Swift.Result<Result, any Error>) = lock.withLock {
                let continuation = self.continuation
                self.continuation = nil
                let response = task.response as? HTTPURLResponse
                let succeeded = failure == nil && error == nil && response != nil
                let content = takeBody(keep: succeeded)
                if let failure { return (continuation, .failure(failure)) }
                if let error { return (continuation, .failure(error)) }
                guard let response else { return (continuation, .failure(URLError(.badServerResponse))) }
                return (
                    continuation,
                    .success(Result(response: response, body: content, digest: hasher.finalize().map { String(format: "%02x", $0) }.joined()))
                )
            }
            continuation?.resume(with: outcome)
        }
    }
}
