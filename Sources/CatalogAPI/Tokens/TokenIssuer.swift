import CatalogModel
import CatalogStore
import Foundation

/// Creates tokens for the command line and for `POST /tokens` alike.
public enum TokenIssuer {
    /// Why a token could not be made, in words a person can act on.
    public enum Refusal: Error, CustomStringConvertible {
        case invalidName(String)
        case noScope
        case unknownScope(APIToken.UnknownScope)
        case invalidExpiry(String)
        case nameTaken(String)

        public var description: String {
            switch self {
            case .invalidName(let reason): reason
            case .noScope: "a token needs at least one scope: \(TokenScope.names)"
            case .unknownScope(let unknown): unknown.description
            case .invalidExpiry(let text): "'\(text)' is not an expiry; use a positive duration such as 90d, 12h or 30m"
            case .nameTaken(let name): "a token named '\(name)' exists; revoke it first or choose another name"
            }
        }
    }

    /// Keeps a new token named `name` with `scopes`, expiring after `expires` (e.g. `90d`; nil: never), and returns
    /// it with its secret, which exists nowhere else from then on.
    public static func create(
        _ store: any CatalogStore, name: String, scopes names: [String], expires: String?, now: Date = Date()
    ) async throws -> (token: APIToken, secret: String) {
        if let reason = APIToken.problem(withName: name) { throw Refusal.invalidName(reason) }
        guard !names.isEmpty else { throw Refusal.noScope }
        let scopes: [TokenScope]
        switch APIToken.scopes(names) {
        case .success(let parsed): scopes = parsed
        case .failure(let unknown): throw Refusal.unknownScope(unknown)
        }
        let expiresAt = try expires.map { text in
            guard let duration = DurationText.parse(text) else { throw Refusal.invalidExpiry(text) }
            return Timestamp.string(from: now.addingTimeInterval(duration.timeInterval))
        }
        let token = APIToken(name: name, scopes: scopes, createdAt: Timestamp.string(from: now), expiresAt: expiresAt)
        let secret = TokenSecret.generate()
        guard try await store.createToken(token, secretHash: TokenSecret.hash(secret.utf8)) else { throw Refusal.nameTaken(name) }
        return (token, secret)
    }
}
