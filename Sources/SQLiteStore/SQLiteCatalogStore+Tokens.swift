import CatalogModel
import CatalogStore
import GRDB

extension SQLiteCatalogStore {
    public func createToken(_ token: APIToken, secretHash: String) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO tokens (name, scopes, created_at, expires_at, secret_hash) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (name) DO NOTHING
                    """,
                arguments: [token.name, TokenColumns.scopes(token.scopes), token.createdAt, token.expiresAt, secretHash])
            return db.changesCount > 0
        }
    }

    public func tokens() async throws -> [APIToken] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(TokenColumns.list) FROM tokens ORDER BY name").map(Self.decodeToken)
        }
    }

    public func token(secretHash: String) async throws -> APIToken? {
        try await read { db in
            try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT \(TokenColumns.list) FROM tokens WHERE secret_hash = ?"), arguments: [secretHash]
            ).map(Self.decodeToken)
        }
    }

    public func revokeToken(name: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM tokens WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    public func recordTokenUse(name: String, at: String) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE tokens SET last_used_at = ? WHERE name = ?", arguments: [at, name])
        }
    }

    private static func decodeToken(_ row: Row) throws -> APIToken {
        try TokenColumns.token(
            name: row["name"], scopes: row["scopes"], createdAt: row["created_at"], lastUsedAt: row["last_used_at"], expiresAt: row["expires_at"])
    }
}
