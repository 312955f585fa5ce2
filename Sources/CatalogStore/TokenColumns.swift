import CatalogModel

/// How every engine stores a token: its columns, and its scopes as one text of names separated by spaces.
public enum TokenColumns {
    /// The columns a token is read from; the secret's hash is never read back.
    public static let list = "name, scopes, created_at, last_used_at, expires_at"

    public static func scopes(_ scopes: [TokenScope]) -> String {
        scopes.map(\.rawValue).joined(separator: " ")
    }

    /// A token as stored; a scope this build does not know is an `UnreadableStoredValue`.
    public static func token(name: String, scopes: String, createdAt: String, lastUsedAt: String?, expiresAt: String?) throws -> APIToken {
        switch APIToken.scopes(scopes.split(separator: " ").map(String.init)) {
        case .success(let parsed): return APIToken(name: name, scopes: parsed, createdAt: createdAt, lastUsedAt: lastUsedAt, expiresAt: expiresAt)
        case .failure: throw UnreadableStoredValue(column: "tokens.scopes", value: scopes)
        }
    }
}
