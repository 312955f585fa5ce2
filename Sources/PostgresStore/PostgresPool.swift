import Logging
import PostgresNIO
import Synchronization

/// A pool of connections that starts afresh when the server comes back (`renew`): postgres-nio's `PostgresClient`,
/// replaced by a new one whose calls connect at once.
///
/// A client whose connections could not be made waits longer after each failed attempt before the next (in
/// postgres-nio 1.33, a quarter of the outage so far, up to a minute), whether or not a call is waiting: after an
/// outage of a few minutes it would go on refusing calls for up to a minute once the server is back. The client a
/// renewal replaces takes no new call and ends once its calls have returned, so that no call under way is cut.
final class PostgresPool: Sendable {
    /// One client and what ends its run.
    private struct Generation: Sendable {
        let number: Int
        let client: PostgresClient
        let ending: AsyncStream<Void>
        let end: AsyncStream<Void>.Continuation
        /// Opens as the client starts to run: calls wait for it.
        let running = StartGate()

        init(number: Int, configuration: PostgresClient.Configuration, logger: Logger) {
            self.number = number
            client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            (ending, end) = AsyncStream<Void>.makeStream()
        }

        /// Runs the client until `end` is finished or the task is cancelled.
        func run() async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    running.open()
                    await client.run()
                }
                group.addTask { for await _ in ending {} }
                await group.next()
                group.cancelAll()
            }
        }
    }

    private struct State {
        var current: Generation
        /// The calls under way on each generation that has any.
        var calls: [Int: Int] = [:]
        /// The replaced generations that still have calls under way.
        var retiring: [Int: Generation] = [:]
        /// `run()` has ended: nothing would run a new client.
        var stopped = false
    }

    private let configuration: PostgresClient.Configuration
    private let logger: Logger
    private let state: Mutex<State>
    /// Each generation to run, the first included: `run()` runs them.
    private let generations: AsyncStream<Generation>
    private let started: AsyncStream<Generation>.Continuation

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        let first = Generation(number: 0, configuration: configuration, logger: logger)
        state = Mutex(State(current: first))
        (generations, started) = AsyncStream<Generation>.makeStream()
        started.yield(first)
    }

    /// Runs each client until the task is cancelled; a call waits for a connection while this runs.
    func run() async {
        defer { state.withLock { $0.stopped = true } }
        await withDiscardingTaskGroup { group in
            for await generation in generations {
                group.addTask { await generation.run() }
            }
        }
    }

    /// Replaces the client: calls from now on are made on a new one, and the one before ends once its calls have
    /// returned. Nothing, once `run()` has ended.
    func renew() {
        let renewed = state.withLock { state -> (next: Generation, ended: Generation?)? in
            guard !state.stopped else { return nil }
            let previous = state.current
            state.current = Generation(number: previous.number + 1, configuration: configuration, logger: logger)
            guard state.calls[previous.number] == nil else {
                state.retiring[previous.number] = previous
                return (state.current, nil)
            }
            return (state.current, previous)
        }
        guard let (next, ended) = renewed else { return }
        logger.info("starting the database connections afresh", metadata: ["store.pool_generation": "\(next.number)"])
        started.yield(next)
        ended?.end.finish()
    }

    /// Runs `body` on a connection of the current client; a connection that closes under it ends the wait
    /// (`PostgresConnection.untilClosed`).
    func withOpenConnection<Result: Sendable>(_ body: @Sendable @escaping (PostgresConnection) async throws -> Result) async throws -> Result {
        let generation = state.withLock { state in
            state.calls[state.current.number, default: 0] += 1
            return state.current
        }
        defer { finishCall(on: generation.number) }
        await generation.running.wait()
        try Task.checkCancellation()
        return try await generation.client.withConnection { connection in
            try await connection.untilClosed { try await body(connection) }
        }
    }

    /// Runs `body` in one transaction on a pooled connection (see `PostgresConnection.transaction`).
    ///
    /// With a `lease`, nothing is sent unless `lease.take()` agrees once the connection is there.
    func transaction<Result: Sendable>(
        _ kind: PostgresTransactionKind, logger: Logger, lease: ConnectionLease? = nil,
        _ body: @Sendable @escaping (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withOpenConnection { connection in
            guard lease?.take() ?? true else { throw CancellationError() }
            return try await connection.transaction(kind, logger: logger, body)
        }
    }

    private func finishCall(on number: Int) {
        let ended = state.withLock { state -> Generation? in
            let left = (state.calls[number] ?? 1) - 1
            guard left == 0 else {
                state.calls[number] = left
                return nil
            }
            state.calls[number] = nil
            return state.retiring.removeValue(forKey: number)
        }
        ended?.end.finish()
    }
}
