import Logging
import PostgresNIO

/// A pool of its own for the prepared first word pages (`PostgresFirstWordPage`), the pages of typed prefixes and of
/// searches' leads (`PostgresPrefixRuns`, `PostgresLeadWordRuns`, `PostgresRowsByOrder`) and first plain pages
/// (`PostgresPlainPages`): its connections start
/// with `plan_cache_mode = force_generic_plan`, so PostgreSQL plans such a statement once per connection and keeps
/// that plan for any word. Planning it for each word took about as long as running it. The store's own pool cannot take the
/// setting: it applies to the unnamed statements of every other read as well, and a page of a common word planned
/// without its values took seconds.
///
/// Such a page is one statement that reads the versions beside its rows, or a typed prefix's or a lead's statements in
/// a transaction of their own that reads them, so it needs no other statement's snapshot and may run on any
/// connection (a lead's page is checked against the versions its sets were made exact at, `PostgresListing.leadPage`).
struct PostgresGenericPlanPool: Sendable {
    let client: PostgresPool
    let connectionWait: Duration
    let store: String

    /// The rows of a prepared read, read on one of this pool's connections.
    func rows<Shape: PostgresPreparedReadShape>(of read: PostgresPreparedRead<Shape>, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        try await transaction(logger: logger) { connection in try await connection.rows(of: read, logger: logger) }
    }

    /// Runs `body` on one of this pool's connections, in a transaction of `kind` (by default none:
    /// `PostgresTransactionKind.single`).
    func transaction<Result: Sendable>(
        _ kind: PostgresTransactionKind = .single, logger: Logger, _ body: @Sendable @escaping (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await PostgresCatalogStore.transaction(kind, on: client, connectionWait: connectionWait, store: store, logger: logger, body)
    }
}
