import Logging
import PostgresNIO

/// A pool of its own for the prepared first word pages (`PostgresFirstWordPage`) and first plain pages (`PostgresPlainPages`):
/// its connections start with
/// `plan_cache_mode = force_generic_plan`, so PostgreSQL plans such a statement once per connection and keeps that plan
/// for any word. Planning it for each word took about as long as running it. The store's own pool cannot take the
/// setting: it applies to the unnamed statements of every other read as well, and a page of a common word planned
/// without its values took seconds.
///
/// Such a page is one statement that reads the versions beside its rows, so it needs no other statement's snapshot
/// and may run on any connection.
struct PostgresGenericPlanPool: Sendable {
    let client: PostgresPool
    let connectionWait: Duration
    let store: String

    /// The rows of a word page, read on one of this pool's connections.
    func rows(of page: PostgresFirstWordPage, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        try await transaction(logger: logger) { connection in try await connection.rows(of: page, logger: logger) }
    }

    /// Runs `body` on one of this pool's connections, outside a transaction (`PostgresTransactionKind.single`).
    func transaction<Result: Sendable>(
        logger: Logger, _ body: @Sendable @escaping (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await PostgresCatalogStore.transaction(.single, on: client, connectionWait: connectionWait, store: store, logger: logger, body)
    }
}
