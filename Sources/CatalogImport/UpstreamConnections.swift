import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One URLSession shared by the pages of an import run, so that they reuse connections (and TLS sessions)
/// instead of opening one per page. Each request keeps its own byte limit and timeout (`BoundedDownload`).
///
/// With libcurl underneath (FoundationNetworking), the session's connection cache serves sequential requests
/// on one connection and concurrent ones (the feed reader's read-ahead) on one connection each, reused after.
final class UpstreamConnections: Sendable {
    private let session: URLSession
    private let router = Router()
    /// Set by `invalidate()`: FoundationNetworking stops the process when a task is made in an invalidated
    /// session, and a read-ahead task may still be starting when its run ends.
    private let invalidated = Mutex(false)

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: nil)
    }

    /// A task for `request` whose events go to `transfer`, not yet resumed; throws once the session is invalidated.
    func dataTask(with request: URLRequest, reportingTo transfer: BoundedDownload.Delegate) throws -> URLSessionDataTask {
        try invalidated.withLock { invalidated in
            guard !invalidated else { throw CancellationError() }
            let task = session.dataTask(with: request)
            router.register(transfer, for: task)
            return task
        }
    }

    /// Lets the tasks still running end, then closes the session's connections and releases it and its delegate.
    func invalidate() {
        invalidated.withLock { invalidated in
            guard !invalidated else { return }
            invalidated = true
            session.finishTasksAndInvalidate()
        }
    }

    /// The session's delegate: a session has one, and each of its tasks reports to its own transfer.
    private final class Router: NSObject, URLSessionDataDelegate, Sendable {
        private let transfers = Mutex<[Int: BoundedDownload.Delegate]>([:])

        func register(_ transfer: BoundedDownload.Delegate, for task: URLSessionTask) {
            transfers.withLock { $0[task.taskIdentifier] = transfer }
        }

        private func transfer(of task: URLSessionTask) -> BoundedDownload.Delegate? {
            transfers.withLock { $0[task.taskIdentifier] }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            guard let transfer = transfer(of: dataTask) else { return completionHandler(.cancel) }
            transfer.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            transfer(of: dataTask)?.urlSession(session, dataTask: dataTask, didReceive: data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
            transfer?.urlSession(session, task: task, didCompleteWithError: error)
        }
    }
}
