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

    /// Tries the lock of `source`; once it is held, `prepare` runs on the same connection. Nil when another
    /// session holds it. Waits at most `wait` for a connection; on any failure nothing stays held.
    static func claim(
        _ source: FeedSource, client: PostgresClient, logger: Logger, wait: Duration, store: String,
        prepare: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws -> PostgresImportClaim? {
        let (released, release) = AsyncStream<Void>.makeStream()
        let (outcomes, outcome) = AsyncThrowingStream<Bool, any Error>.makeStream()
        let key = PostgresLock.importRun(source)
        let lease = ConnectionLease()
        let holder = Task {
            defer { lease.settle() }
            do {
                try await client.withConnection { connection in
                    guard lease.take() else { return }
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
        guard await lease.settled(within: wait) else {
            holder.cancel()
            release.finish()
            throw StoreUnavailable(store: store, reason: "no connection within \(wait)")
        }
        do {
            for try await acquired in outcomes {
                guard acquired else { break }
                return PostgresImportClaim(holder: holder, released: release)
            }
            release.finish()
            return nil
        } catch {
            release.finish()
            throw lease.wasTaken ? error : StoreUnavailable(store: store, reason: PostgresFailure.describe(error))
        }
    }

    func release() async {
        released.finish()
        await holder.value
    }
}
