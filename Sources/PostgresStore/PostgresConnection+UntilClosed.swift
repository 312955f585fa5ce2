import NIOCore
import PostgresNIO

extension PostgresConnection {
    /// How often `untilClosed` looks whether its connection has closed, and how long work that outlives the connection
    /// then has to return an answer that came before the close.
    static let closedCheckInterval: Duration = .milliseconds(250)

    /// Runs `work`, which uses this connection, and returns what it returns; throws `PostgresConnectionClosed` when the
    /// connection has closed and the work still runs one check interval later.
    ///
    /// postgres-nio 1.33 never answers a statement sent after its connection closed (the write fails with no promise to
    /// fail: vapor/postgres-nio#487, reverted in #501), nor a `COPY` whose connection closes under it (its continuation is
    /// leaked). After the server restarted, a rollback, an import's next batch or the release of its claim would wait for
    /// ever, and a stop with them. Such work is left to end by itself, or with the process.
    func untilClosed<Result: Sendable>(_ work: @Sendable @escaping () async throws -> Result) async throws -> Result {
        let answer = eventLoop.makePromise(of: Result.self)
        let running = Task {
            do {
                answer.succeed(try await work())
            } catch {
                answer.fail(error)
            }
        }
        let interval = TimeAmount(Self.closedCheckInterval)
        // Runs on the connection's event loop; a promise fulfilled twice keeps its first value.
        let check = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [eventLoop] check in
            guard self.isClosed else { return }
            check.cancel()
            eventLoop.scheduleTask(in: interval) {
                answer.fail(PostgresConnectionClosed())
                running.cancel()
            }
        }
        answer.futureResult.whenComplete { _ in check.cancel() }
        return try await withTaskCancellationHandler {
            try await answer.futureResult.get()
        } onCancel: {
            running.cancel()
        }
    }
}
