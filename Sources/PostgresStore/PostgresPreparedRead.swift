import Logging
import PostgresNIO

/// A read whose SQL is the same whatever its values, prepared once per connection: parsing and planning such a
/// statement took as long as running it. `Shape` names it and makes its SQL; on the generic-plan pool's connections
/// (`PostgresGenericPlanPool`) it is planned once as well.
struct PostgresPreparedRead<Shape: PostgresPreparedReadShape>: PostgresPreparedStatement {
    static var name: String { Shape.name }
    static var sql: String { Shape.sql }
    let binds: PostgresBindings

    /// The read `statement` is; nil for any other statement.
    init?(_ statement: (sql: String, binds: PostgresBindings)) {
        guard statement.sql == Self.sql else { return nil }
        binds = statement.binds
    }

    func makeBindings() -> PostgresBindings { binds }

    func decodeRow(_ row: PostgresRow) -> PostgresRandomAccessRow { row.makeRandomAccess() }
}

/// A statement a connection prepares: its name there (PostgreSQL keeps 63 bytes of it) and its SQL.
protocol PostgresPreparedReadShape: SendableMetatype {
    static var name: String { get }
    static var sql: String { get }
}

extension PostgresConnection {
    /// The rows of a prepared read, prepared once per connection.
    func rows<Shape: PostgresPreparedReadShape>(of read: PostgresPreparedRead<Shape>, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var fetched: [PostgresRandomAccessRow] = []
        for try await row in try await execute(read, logger: logger) { fetched.append(row) }
        return fetched
    }

    /// The rows of `statement`, prepared as `Shape` when it is that statement's SQL.
    func rows<Shape: PostgresPreparedReadShape>(
        of statement: (sql: String, binds: PostgresBindings), preparedAs _: Shape.Type, logger: Logger
    ) async throws -> [PostgresRandomAccessRow] {
        guard let prepared = PostgresPreparedRead<Shape>(statement) else { return try await rows(of: statement, logger: logger) }
        return try await rows(of: prepared, logger: logger)
    }
}
