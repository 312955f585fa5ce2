import CatalogModel
import CatalogStore
import Logging
import PostgresNIO
import Synchronization

/// A session-level advisory lock (`PostgresLock.importRun`, `PostgresLock.webhookDelivery`) held on a pooled
/// connection kept for the purpose: released by `release()`, or by the server when the connection ends, so a replica
/// killed mid-job lets the next one take it.
final class PostgresClaim: StoreClaim {
    let key: Int64
    /// The server process of the connection that holds the lock.
    let holderProcess: Int32
    private let holder: Task<Void, Never>
    private let released: AsyncStream<Void>.Continuation
    /// Cleared when the holder ends: released, or its connection closed.
    private let held: HeldFlag

    private init(key: Int64, holderProcess: Int32, holder: Task<Void, Never>, released: AsyncStream<Void>.Continuation, held: HeldFlag) {
        self.key = key
        self.holderProcess = holderProcess
        self.holder = holder
        self.released = released
        self.held = held
    }

    var isHeld: Bool { held.value.load(ordering: .acquiring) }

    /// Tries the lock `key`; once it is held, `prepare` runs on the same connection. Nil when another
    /// session holds it. Waits at most `wait` for a connection; on any failure nothing stays held.
    static func claim(
        _ key: Int64, client: PostgresPool, logger: Logger, wait: Duration, store: String,
        prepare: @escaping @Sendable (PostgresConnection) async throws -> Void = { _ in }
    ) async throws -> PostgresClaim? {
        let (released, release) = AsyncStream<Void>.makeStream()
        // The holder's server process when the lock is taken; nil when another session holds it.
        let (outcomes, outcome) = AsyncThrowingStream<Int32?, any Error>.makeStream()
        let lease = ConnectionLease()
        let held = HeldFlag()
        let holder = Task {
            defer {
                held.value.store(false, ordering: .releasing)
                lease.settle()
            }
            do {
                // A connection the server ends takes the lock with it, and ends the holder (`withOpenConnection`): a release
                // waits for nothing then.
                try await client.withOpenConnection { connection in
                    guard lease.take() else { return }
                    var acquired = false
                    var process: Int32 = 0
                    let query: PostgresQuery = "SELECT pg_try_advisory_lock(\(key)), pg_backend_pid()"
                    for try await (got, pid) in try await connection.query(query, logger: logger).decode((Bool, Int32).self) {
                        (acquired, process) = (got, pid)
                    }
                    guard acquired else {
                        outcome.yield(nil)
                        return
                    }
                    do {
                        try await prepare(connection)
                    } catch {
                        if !connection.isClosed { _ = try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger) }
                        throw error
                    }
                    outcome.yield(process)
                    try await hold(connection, until: released, logger: logger)
                    if !connection.isClosed { _ = try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger) }
                }
                outcome.finish()
            } catch {
                outcome.finish(throwing: error)
            }
        }
        guard await lease.settled(within: wait) else {
            holder.cancel()
            release.finish()
            throw StoreUnavailable(store: store, reason: "no connection within \(wait)")
        }
        do {
            for try await process in outcomes {
                guard let process else { break }
                return PostgresClaim(key: key, holderProcess: process, holder: holder, released: release, held: held)
            }
            release.finish()
            return nil
        } catch {
            release.finish()
            throw lease.wasTaken ? error : StoreUnavailable(store: store, reason: PostgresFailure.describe(error))
        }
    }

    /// How often the holder asks its server whether the session is alive, and how long it waits for the answer.
    static let heartbeat: Duration = .seconds(3)
    static let heartbeatWait: Duration = .seconds(5)

    /// Keeps the lock's session until `released` ends, asking the server every `heartbeat` whether it is there. The
    /// server is told to probe the connection too (TCP keepalives, every 2 s after 4 s of silence, 2 unanswered probes):
    /// when the holder's host dies or the network between them breaks, the server ends the session and lets the lock go
    /// within about 8 s, and the holder learns that its session is gone within `heartbeat` and `heartbeatWait`, rather
    /// than when the operating system's keepalives give up, hours later.
    private static func hold(_ connection: PostgresConnection, until released: AsyncStream<Void>, logger: Logger) async throws {
        try await connection.query(
            """
            SELECT set_config('tcp_keepalives_idle', '4', false), set_config('tcp_keepalives_interval', '2', false),
                set_config('tcp_keepalives_count', '2', false)
            """, logger: logger)
        // One stream of beats, ended by the release: `released` is read by one task alone, as an iteration that is
        // cancelled ends its stream.
        let (beats, beat) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let timer = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                beat.yield()
            }
        }
        let watcher = Task {
            for await _ in released {}
            beat.finish()
        }
        defer {
            timer.cancel()
            watcher.cancel()
        }
        for await _ in beats where !connection.isClosed {
            let alive = await withTaskGroup(of: Bool.self) { group in
                group.addTask { (try? await connection.query("SELECT 1", logger: logger)) != nil }
                group.addTask {
                    // A query on a silent session ends with its connection, not with its task: the connection is closed.
                    guard (try? await Task.sleep(for: heartbeatWait)) != nil else { return true }
                    try? await connection.close()
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            guard alive else { return }
        }
    }

    /// Whether the lock is still held by its connection, asked from `connection`: the transaction about to apply an
    /// import commits only if no other replica can have started the source meanwhile.
    func isHeld(on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let query: PostgresQuery = """
            SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = \(holderProcess) AND objsubid = 1
                AND classid = \(key >> 32)::bigint::oid AND objid = \(key & 0xFFFF_FFFF)::bigint::oid
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        for try await held in try await connection.query(query, logger: logger).decode(Int.self) where held > 0 { return true }
        return false
    }

    func release() async {
        released.finish()
        await holder.value
    }
}

/// Whether a claim's holder still runs, shared between the holder's task and the claim.
private final class HeldFlag: Sendable {
    let value = Atomic(true)
}
