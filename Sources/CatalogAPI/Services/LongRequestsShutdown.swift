import CatalogImport
import ServiceLifecycle

/// Ends change streams and long polls, and cancels running imports, as soon as graceful shutdown begins.
///
/// Hummingbird runs its HTTP server as the last service of the application's own group, so the server is told
/// first and waits for in-flight requests, while the application's services hear of the shutdown only once it
/// has finished: a change stream would hold it for ever. This service runs after the application in the
/// process's group, which shuts down in reverse order, so it hears first and the server's drain that follows
/// has nothing long left to wait for. Hearing first, it also starts the clock of the stop's deadline.
struct LongRequestsShutdown: Service {
    let notifier: ChangeNotifier
    let importer: Importer
    let clock: StopClock

    func run() async throws {
        // Returns when shutdown begins; throws only when cancelled, and then the same work is due.
        try? await gracefulShutdown()
        clock.markStart()
        await notifier.shutDown()
        await importer.shutDown()
    }
}
