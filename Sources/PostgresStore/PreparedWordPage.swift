import Logging
import PostgresNIO

/// The word page a statement is (`PostgresWordPage`), told once from its SQL, which `matchesStatement` makes for
/// the statements' own SQL as well: its rows are read prepared.
enum PreparedWordPage: Sendable {
    case word(PostgresFirstWordPage)

    /// The word page `statement` is; nil for any other statement.
    init?(_ statement: (sql: String, binds: PostgresBindings)) {
        switch statement.sql {
        case PostgresFirstWordPage.sql: self = .word(PostgresFirstWordPage(binds: statement.binds))
        default: return nil
        }
    }
}

extension PostgresConnection {
    /// The rows of a word page, prepared once per connection.
    func rows(of page: PreparedWordPage, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var fetched: [PostgresRandomAccessRow] = []
        switch page {
        case .word(let statement): for try await row in try await execute(statement, logger: logger) { fetched.append(row) }
        }
        return fetched
    }
}
