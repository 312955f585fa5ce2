import Logging
import ServiceLifecycle

/// Runs the application and closes whatever connections are still open `timeout` after graceful shutdown began (as
/// `clock` saw it), so that the server's drain ends, the store is closed as always and the process exits 0; and ends
/// the stop `abandonAfter` later even if the application has not ended by then.
///
/// Without it a client that stopped reading holds a stop until the send timeout (30 s by default), past a
/// container's grace period, which ends in SIGKILL and cuts every other request in flight. The rest of the stop
/// is as without a deadline: long requests and imports have ended before (their service hears first and starts the
/// clock, so its time counts against the deadline too), and the store closes after the server.
///
/// The last wait is for work that no cancellation reaches, such as a call on a database connection that the server
/// closed while it waited, which its driver may never answer. Such work is left to end with the process: whatever it
/// had not committed, the database rolls back, as after a crash.
struct ShutdownDeadline<Application: Service>: Service {
    static var defaultTimeout: Duration { .seconds(10) }
    /// How long past `timeout` the application has to end once its connections are closed.
    static var abandonAfter: Duration { .milliseconds(500) }

    let application: Application
    let timeout: Duration
    let connections: OpenConnections
    let clock: StopClock
    let logger: Logger

    private enum Outcome {
        case ended(Result<Void, any Error>)
        case abandoned
    }

    func run() async throws {
        let (outcomes, outcome) = AsyncStream<Outcome>.makeStream()
        // Unstructured, so that the stop can end without it: a task group waits for its tasks whatever happens. Both
        // inherit the group's graceful shutdown.
        let running = Task {
            do {
                try await application.run()
                outcome.yield(.ended(.success(())))
            } catch {
                outcome.yield(.ended(.failure(error)))
            }
        }
        let deadline = Task {
            // Each wait ends early only when the application has ended and this task is cancelled.
            try? await gracefulShutdown()
            try? await Task.sleep(until: clock.start + timeout)
            guard !Task.isCancelled else { return }
            let closed = connections.closeAll()
            if closed > 0 {
                logger.warning(
                    "shutdown timeout (\(timeout)) reached: closed \(closed) connection(s) still open",
                    metadata: ["shutdown.timeout": "\(timeout)", "shutdown.closed_connections": "\(closed)"])
            }
            try? await Task.sleep(until: clock.start + timeout + Self.abandonAfter)
            guard !Task.isCancelled else { return }
            outcome.yield(.abandoned)
        }
        defer { deadline.cancel() }
        let first = await withTaskCancellationHandler {
            await outcomes.first { _ in true }
        } onCancel: {
            running.cancel()
        }
        switch first {
        case .ended(let result): try result.get()
        case .abandoned:
            logger.error(
                "the application had not ended \(Self.abandonAfter) after the shutdown timeout (\(timeout)): the stop ends without it",
                metadata: ["shutdown.timeout": "\(timeout)", "shutdown.abandoned": "application"])
            running.cancel()
        case nil:
            // Cancelled rather than stopped: the application is cancelled too, and waited for, as a task group would.
            running.cancel()
            await running.value
        }
    }
}
