import CatalogStore
import Logging
import ServiceLifecycle

/// Writes when tokens were last used, off the request path: a request only leaves the token's name here, so that
/// a write waiting behind an import's transaction never holds up the request that used the token.
public struct TokenUsageService: Service {
    private let uses: AsyncStream<(name: String, at: String)>
    private let continuation: AsyncStream<(name: String, at: String)>.Continuation
    let store: any CatalogStore
    let logger: Logger

    public init(store: any CatalogStore, logger: Logger) {
        // Past this many waiting writes a use is dropped: the next one, a minute later, records it.
        (uses, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1000))
        self.store = store
        self.logger = logger
    }

    /// Leaves a use to be written; returns at once.
    func record(_ name: String, at: String) {
        continuation.yield((name, at))
    }

    public func run() async throws {
        for await use in uses.cancelOnGracefulShutdown() {
            do {
                try await store.recordTokenUse(name: use.name, at: use.at)
            } catch {
                logger.warning("recording the use of token \(use.name) failed: \(error)", metadata: ["token.name": "\(use.name)"])
            }
        }
    }
}
