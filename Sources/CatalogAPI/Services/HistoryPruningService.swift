import CatalogModel
import CatalogStore
import Foundation
import Logging
import ServiceLifecycle

/// Prunes history older than the retention, at start-up and then every hour.
struct HistoryPruningService: Service {
    static let interval: Duration = .seconds(3600)

    let store: any CatalogStore
    let retention: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            let cutoff = Timestamp.string(from: Date(timeIntervalSinceNow: -retention.timeInterval))
            do {
                let pruned = try await store.pruneHistory(before: cutoff)
                if pruned > 0 { logger.info("pruned \(pruned) changes recorded before \(cutoff)") }
            } catch {
                logger.warning("history pruning failed: \(error)")
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
            } catch {
                return
            }
        }
    }
}
