import CatalogStore
import Logging
import ServiceLifecycle

/// Runs the notifier's poll as a service, and closes change streams on graceful shutdown.
struct ChangeNotifierService: Service {
    static let pollInterval: Duration = .milliseconds(200)

    let notifier: ChangeNotifier
    let store: CatalogStore
    let logger: Logger

    func run() async throws {
        await withGracefulShutdownHandler {
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                do {
                    await notifier.publish(try await store.versions().lastSeq)
                } catch {
                    logger.warning("change notifier could not read the store: \(error)")
                }
                try? await Task.sleep(for: Self.pollInterval)
            }
        } onGracefulShutdown: {
            Task { await notifier.shutDown() }
        }
    }
}
