import CatalogModel
import Logging
import PostgresNIO

extension PostgresSchema {
    /// Applies the pending migrations, all of them or those up to and with `last`; returns the applied ones, oldest first.
    @discardableResult
    static func migrate(_ connection: PostgresConnection, upTo last: String? = nil, logger: Logger) async throws -> [String] {
        let wanted = last.flatMap { last in migrations.firstIndex { $0.identifier == last } }.map { migrations[...$0] } ?? migrations[...]
        return try await connection.transaction(.write, logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresLock.migrations))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS catalogd_migrations (identifier TEXT PRIMARY KEY, applied_at TEXT NOT NULL)", logger: logger)
            var applied = try await appliedMigrations(connection, logger: logger)
            for migration in wanted where !applied.contains(migration.identifier) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO catalogd_migrations (identifier, applied_at) VALUES (\(migration.identifier), \(Timestamp.now()))",
                    logger: logger)
                applied.append(migration.identifier)
                logger.info("store migrated: \(migration.identifier)", metadata: ["store.migration": "\(migration.identifier)"])
            }
            return applied
        }
    }

    static func appliedMigrations(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        var identifiers: [String] = []
        for try await identifier in try await connection.query(
            "SELECT identifier FROM catalogd_migrations ORDER BY identifier", logger: logger
        ).decode(String.self) {
            identifiers.append(identifier)
        }
        return identifiers
    }
}
