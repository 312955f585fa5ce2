import Logging
import PostgresNIO

/// How a transaction begins: reads see one snapshot; writes see every commit before each of their statements.
enum PostgresTransactionKind: String {
    case read = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
    case write = "BEGIN"
}

extension PostgresClient {
    /// Runs `body` in one transaction on one pooled connection. Unlike `withTransaction`, an error from `body`
    /// rolls back and is rethrown as it was, so that callers see `HistoryGone` or `InvalidQuery` themselves.
    func transaction<Result: Sendable>(
        _ kind: PostgresTransactionKind, logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: kind.rawValue), logger: logger)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }
}
