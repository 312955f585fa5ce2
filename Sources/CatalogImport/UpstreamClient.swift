import CatalogModel
import Crypto
import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
