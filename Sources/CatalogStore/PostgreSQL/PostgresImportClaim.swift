import CatalogModel
import CatalogStore
import Logging
import PostgresNIO
import Synchronization

/// A session-level advisory lock (`PostgresLock.importRun`) held on a pooled connection kept for the purpose:
/// released by `release()`, or by the server when the connection ends, so a replica killed mid-import
/// lets the next one run.
final class PostgresImportClaim: ImportClaim {
    private let holder: Task<Void, Never>
    private let released: AsyncStream<Void>.Continuation

    private init(holder: Task<Void, Never>, released: AsyncStream<Void>.Continuation) {
        self.holder = holder
        self.released = released
    }

    /// Tries the lock of `source`; once it is held, `prepare` runs on the same connection (outside any transaction).
    /// Nil when another session holds it. Waits at most `wait` for a connection.
    static func claim(
        _ source: FeedSource, client: PostgresClient, logger: Logger, wait: Duration,
        prepare: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws -> PostgresImportClaim? {
        let (released, release) = AsyncStream<Void>.makeStream()
        let (outcomes, outcome) = AsyncThrowingStream<Bool, any Error>.makeStream()
        let key = PostgresLock.importRun(source)
        let holder = Task {
            do {
                try await client.withConnection { connection in
                    var acquired = false
                    for try await got in try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger).decode(Bool.self) {
                        acquired = got
                    }
                    guard acquired else {
                        outcome.yield(false)
                        return
                    }
                    do {
                        try await prepare(connection)
                    } catch {
                        _ = try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger)
                        throw error
                    }
                    outcome.yield(true)
                    for await _ in released {}
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger)
                }
                outcome.finish()
            } catch {
                outcome.finish(throwing: error)
            }
        }
        let acquired = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for try await acquired in outcomes { return acquired }
                throw CancellationError()
            }
            group.addTask {
                try await Task.sleep(for: wait)
                throw StoreUnavailable(store: "\(source.rawValue) import lock", reason: "no connection within \(wait)")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        guard acquired else {
            release.finish()
            return nil
        }
        return PostgresImportClaim(holder: holder, released: release)
    }

    func release() async {
        released.finish()
        await holder.value
    }
}
