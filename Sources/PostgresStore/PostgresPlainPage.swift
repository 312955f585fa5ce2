import Logging
import PostgresNIO

/// A number as a type, a prepared read's shape (`PostgresPreparedRead`): the statement
/// `PostgresPlainPages.statements[value]`, the first and the one after another.
protocol PlainPageNumber: PostgresPreparedReadShape {
    static var value: Int { get }
}

extension PlainPageNumber {
    // Short: PostgreSQL keeps 63 bytes of a prepared statement's name, and a type's full name is longer.
    static var name: String { "catalogd_plain_page_\(value)" }
    static var sql: String { PostgresPlainPages.statements[value] }
}

enum FirstPlainPage: PlainPageNumber {
    static var value: Int { 0 }
}

enum NextPlainPage<Previous: PlainPageNumber>: PlainPageNumber {
    static var value: Int { Previous.value + 1 }
}

extension PostgresConnection {
    /// The rows of the first plain page numbered `number` (`PostgresPlainPages`), prepared once per connection: its type
    /// is found by counting up from `Number`.
    func rows<Number: PlainPageNumber>(
        ofPlainPage number: Int, binds: PostgresBindings, from _: Number.Type = FirstPlainPage.self, logger: Logger
    ) async throws -> [PostgresRandomAccessRow] {
        guard number > Number.value else { return try await rows(of: (Number.sql, binds), preparedAs: Number.self, logger: logger) }
        return try await rows(ofPlainPage: number, binds: binds, from: NextPlainPage<Number>.self, logger: logger)
    }
}
