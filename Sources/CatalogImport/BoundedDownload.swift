import CatalogModel
import Crypto
import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
