import Logging
import ServiceLifecycle

/// Runs the application and closes whatever connections are still open `timeout` after graceful shutdown began (as
/// `clock` saw it), so that the server's drain ends, the store is closed as always and the process exits 0.
///
/// Without it a client that stopped reading holds a stop until the send timeout (30 s by default), past a
/// container's grace period, which ends in SIGKILL and cuts every other request in flight. The rest of the stop
/// is as without a deadline: long requests and imports have ended before (their service hears first and starts the
/// clock, so its time counts against the deadline too), and the store closes after the server.
struct ShutdownDeadline<Application: Service>: Service {
    static var defaultTimeout: Duration { .seconds(10) }

    let application: Application
    let timeout: Duration
    let connections: OpenConnections
    let clock: StopClock
    let logger: Logger

    private enum Finished { case application, deadline }

    func run() async throws {
        try await withThrowingTaskGroup(of: Finished.self) { group in
            group.addTask {
                try await application.run()
                return .application
            }
            group.addTask {
                // Each wait ends early only when the application has ended and this task is cancelled.
                try? await gracefulShutdown()
                try? await Task.sleep(until: clock.start + timeout)
                guard !Task.isCancelled else { return .deadline }
                let closed = connections.closeAll()
                if closed > 0 {
                    logger.warning(
                        "shutdown timeout (\(timeout)) reached: closed \(closed) connection(s) still open",
                        metadata: ["shutdown.timeout": "\(timeout)", "shutdown.closed_connections": "\(closed)"])
                }
                return .deadline
            }
            while let finished = try await group.next() {
                if finished == .application { group.cancelAll() }
            }
        }
    }
}
