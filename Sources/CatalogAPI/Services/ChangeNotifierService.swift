import CatalogStore
import Logging
import ServiceLifecycle

/// Feeds the notifier from the store's watch for commits, and closes change streams on graceful shutdown.
struct ChangeNotifierService: Service {
    let notifier: ChangeNotifier
    let store: any CatalogStore
    let logger: Logger

    func run() async throws {
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown {
                await store.watchCommits { [logger] error in
                    logger.warning("change notifier could not read the store: \(error)")
                } onCommit: { [notifier] seq in
                    await notifier.publish(seq)
                }
            }
        } onGracefulShutdown: {
            Task { await notifier.shutDown() }
        }
    }
}
