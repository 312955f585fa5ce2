import Logging
import PostgresNIO

/// The statement `PostgresPlainPages.statements[Number.value]`, prepared.
struct PostgresPlainPage<Number: PlainPageNumber>: PostgresPreparedStatement {
    // Short: PostgreSQL keeps 63 bytes of a prepared statement's name, and a type's full name is longer.
    static var name: String { "catalogd_plain_page_\(Number.value)" }
    static var sql: String { PostgresPlainPages.statements[Number.value] }
    let binds: PostgresBindings

    func makeBindings() -> PostgresBindings { binds }

    func decodeRow(_ row: PostgresRow) -> PostgresRandomAccessRow { row.makeRandomAccess() }
}

/// A number as a type: the first, and the one after another.
protocol PlainPageNumber {
    static var value: Int { get }
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
        guard number > Number.value else {
            var fetched: [PostgresRandomAccessRow] = []
            for try await row in try await execute(PostgresPlainPage<Number>(binds: binds), logger: logger) { fetched.append(row) }
            return fetched
        }
        return try await rows(ofPlainPage: number, binds: binds, from: NextPlainPage<Number>.self, logger: logger)
    }
}
