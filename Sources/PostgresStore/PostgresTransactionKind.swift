import Logging
import PostgresNIO

/// How a transaction begins: reads see one snapshot; writes see every commit before each of their statements.
enum PostgresTransactionKind: String {
    case read = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
    /// Named, not the server's default: a write reads the last seq after its lock is granted, which needs a fresh
    /// snapshot per statement.
    case write = "BEGIN ISOLATION LEVEL READ COMMITTED"
    /// One statement, which sees one snapshot by itself: no BEGIN and COMMIT round trips (the per-GET version check).
    case single = ""
}

extension PostgresConnection {
    /// Runs `body` in one transaction. Unlike `withTransaction`, an error from `body` rolls back and is rethrown as
    /// it was, so that callers see `HistoryGone` or `InvalidQuery` themselves.
    nonisolated(nonsending) func transaction<Result: Sendable>(
        _ kind: PostgresTransactionKind, logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        if kind == .single { return try await body(self) }
        try await query(PostgresQuery(unsafeSQL: kind.rawValue), logger: logger)
        do {
            let result = try await body(self)
            try await query("COMMIT", logger: logger)
            return result
        } catch {
            // A closed connection's transaction has ended with it; a statement sent on it would never be answered.
            if !isClosed { _ = try? await query("ROLLBACK", logger: logger) }
            throw error
        }
    }
}
