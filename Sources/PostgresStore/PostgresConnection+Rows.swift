import Logging
import PostgresNIO

extension PostgresConnection {
    /// The rows of `statement`, not prepared.
    func rows(of statement: (sql: String, binds: PostgresBindings), logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var fetched: [PostgresRandomAccessRow] = []
        for try await row in try await query(PostgresQuery(unsafeSQL: statement.sql, binds: statement.binds), logger: logger) {
            fetched.append(row.makeRandomAccess())
        }
        return fetched
    }
}
