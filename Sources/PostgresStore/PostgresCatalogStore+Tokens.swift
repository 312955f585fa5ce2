import CatalogModel
import CatalogStore
import Logging
import PostgresNIO

extension PostgresCatalogStore {
    public func createToken(_ token: APIToken, secretHash: String) async throws -> Bool {
        try await transaction(.write) { connection in
            let query: PostgresQuery = """
                INSERT INTO tokens (name, scopes, created_at, expires_at, secret_hash)
                VALUES (\(token.name), \(TokenColumns.scopes(token.scopes)), \(token.createdAt), \(token.expiresAt), \(secretHash))
                ON CONFLICT (name) DO NOTHING RETURNING 1
                """
            var inserted = false
            for try await _ in try await connection.query(query, logger: logger) { inserted = true }
            return inserted
        }
    }

    public func tokens() async throws -> [APIToken] {
        try await transaction(.read) { connection in
            try await Self.fetchTokens(connection, "SELECT \(unescaped: TokenColumns.list) FROM tokens ORDER BY name", logger: logger)
        }
    }

    public func token(secretHash: String) async throws -> APIToken? {
        try await transaction(.read) { connection in
            try await Self.fetchTokens(
                connection, "SELECT \(unescaped: TokenColumns.list) FROM tokens WHERE secret_hash = \(secretHash)", logger: logger
            ).first
        }
    }

    public func revokeToken(name: String) async throws -> Bool {
        try await transaction(.write) { connection in
            var deleted = false
            for try await _ in try await connection.query("DELETE FROM tokens WHERE name = \(name) RETURNING 1", logger: logger) { deleted = true }
            return deleted
        }
    }

    public func recordTokenUse(name: String, at: String) async throws {
        try await transaction(.write) { connection in
            _ = try await connection.query("UPDATE tokens SET last_used_at = \(at) WHERE name = \(name)", logger: logger)
        }
    }

    private static func fetchTokens(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> [APIToken] {
        var tokens: [APIToken] = []
        for try await (name, scopes, createdAt, lastUsedAt, expiresAt) in try await connection.query(query, logger: logger).decode(
            (String, String, String, String?, String?).self)
        {
            tokens.append(try TokenColumns.token(name: name, scopes: scopes, createdAt: createdAt, lastUsedAt: lastUsedAt, expiresAt: expiresAt))
        }
        return tokens
    }
}
