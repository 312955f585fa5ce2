import CatalogModel
import Logging
import ServiceLifecycle

/// Imports every configured source every `interval`, as a service of the application: at start-up, unless
/// the last successful run (by this process, or another replica on the same store) finished less than an
/// interval ago, and then whenever an interval has passed since the last successful run. Replicas whose
/// schedulers tick together share one run: the others are told it is in progress, or find it recent.
///
/// A failed run is retried sooner (30 s, doubling up to the interval) and never stops the service;
/// graceful shutdown cancels runs in flight, which roll back.
public struct ImportScheduler: Service {
    public static let firstRetryDelay: Duration = .seconds(30)

    let importer: Importer
    /// nil disables scheduling: nothing is imported unless asked.
    let interval: Duration?
    let logger: Logger

    public init(importer: Importer, interval: Duration?, logger: Logger) {
        self.importer = importer
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        let sources = importer.configuredSources
        guard let interval, !sources.isEmpty else {
            logger.info(interval == nil ? "scheduled imports are off" : "no feed is configured: nothing to import")
            // A service that returns early would stop the whole application.
            try? await gracefulShutdown()
            return
        }
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                for source in sources {
                    group.addTask { await self.loop(source, interval: interval) }
                }
            }
        } onGracefulShutdown: {
            Task { await importer.shutDown() }
        }
    }

    private func loop(_ source: FeedSource, interval: Duration) async {
        var retryDelay = Self.firstRetryDelay
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // A run that succeeded within the interval, here or on another replica, is this one's.
            if let since = try? await importer.timeSinceLastSuccess(of: source), since < interval {
                do {
                    try await pause(interval - since)
                } catch {
                    return
                }
                continue
            }
            var delay = interval
            do {
                let report = try await importer.run(source)
                if report.status == .failed {
                    delay = min(retryDelay, interval)
                    retryDelay = min(retryDelay * 2, interval)
                    logger.warning("next \(source.rawValue) import in \(delay)")
                } else {
                    retryDelay = Self.firstRetryDelay
                }
            } catch ImportStartError.alreadyRunning(let id) {
                logger.info("scheduled \(source.rawValue) import skipped: \(id.map { "run \($0)" } ?? "a run of another process") is in progress")
            } catch {
                logger.error("scheduled \(source.rawValue) import could not start: \(error)")
                delay = min(retryDelay, interval)
            }
            do {
                try await pause(delay)
            } catch {
                return
            }
        }
    }

    /// Sleeps `delay` and up to 10% more, so that many instances do not hit the upstream in step; throws when the
    /// service shuts down meanwhile.
    private func pause(_ delay: Duration) async throws {
        let pause = delay + delay * Double.random(in: 0...0.1)
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
    }
}
