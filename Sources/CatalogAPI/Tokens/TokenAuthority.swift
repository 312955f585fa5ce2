import CatalogModel
import CatalogStore
import Foundation
import Hummingbird
import Synchronization

/// Who a request's bearer secret belongs to, and whether it may do what it asks: the `--api-token` secret (named
/// `bootstrap`, with every scope) or a token kept in the store.
///
/// A stored token is found by the SHA-256 of the secret, so the time a wrong secret takes does not depend on how
/// much of it matches. What the store says of a secret is believed for `freshness` at most: a token revoked on any
/// replica, or by the command line, is refused everywhere within it.
public final class TokenAuthority: Sendable {
    static let freshness: Duration = .milliseconds(500)
    /// A token's last use is written at most this often.
    static let usageInterval: Duration = .seconds(60)
    /// Past this many remembered secrets the memory is emptied, so that guesses cannot fill it.
    static let rememberedLimit = 10_000

    let store: any CatalogStore
    /// SHA-256 of the `--api-token` secret; nil when none is configured.
    private let bootstrapDigest: [UInt8]?
    private let usage: TokenUsageService
    private let remembered = Mutex<[String: (token: APIToken?, checked: ContinuousClock.Instant)]>([:])
    private let recordedUses = Mutex<[String: ContinuousClock.Instant]>([:])

    init(store: any CatalogStore, bootstrapSecret: String?, usage: TokenUsageService) {
        self.store = store
        bootstrapDigest = bootstrapSecret.flatMap { $0.isEmpty ? nil : TokenSecret.digest($0.utf8) }
        self.usage = usage
    }

    /// The bootstrap token, as requests and the history see it.
    static let bootstrap = APIToken(name: APIToken.bootstrapName, scopes: TokenScope.allCases, createdAt: "")

    /// The token of `request`, when it holds `scope`: 401 (with `WWW-Authenticate`) for no token, an unknown, revoked
    /// or expired one; 403 naming the scope for a token without it.
    func authorize(_ request: Request, _ scope: TokenScope) async throws -> APIToken {
        let challenge: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"catalogd\", scope=\"\(scope.rawValue)\""]
        guard let secret = Self.bearerSecret(request) else {
            throw Problem(
                .unauthorized, type: "unauthorized",
                detail: "this needs Authorization: Bearer <token> with the scope \(scope.rawValue) (tokens are made with catalogd token create)",
                headers: challenge)
        }
        let digest = TokenSecret.digest(secret)
        let token: APIToken
        if let bootstrapDigest, TokenSecret.constantTimeEqual(digest, bootstrapDigest) {
            token = Self.bootstrap
        } else if let stored = try await lookUp(TokenSecret.hash(secret)) {
            let now = Timestamp.now()
            guard !stored.hasExpired(at: now) else {
                throw Problem(
                    .unauthorized, type: "unauthorized", detail: "the token '\(stored.name)' expired at \(stored.expiresAt ?? now)",
                    headers: challenge)
            }
            recordUse(of: stored, at: now)
            token = stored
        } else {
            throw Problem(
                .unauthorized, type: "unauthorized",
                detail: "the bearer token is not valid: unknown, revoked or mistyped (tokens are made with catalogd token create)", headers: challenge
            )
        }
        guard token.scopes.contains(scope) else {
            throw Problem(
                .forbidden, type: "insufficient-scope", detail: "the token '\(token.name)' lacks the scope \(scope.rawValue)",
                extensions: [("scope", .string(scope.rawValue))])
        }
        return token
    }

    /// Whether the request carries a token that holds `scope`: for what a page shows only to such a token.
    func permits(_ request: Request, _ scope: TokenScope) async -> Bool {
        guard Self.bearerSecret(request) != nil else { return false }
        return (try? await authorize(request, scope)) != nil
    }

    /// The secret of the request's `Authorization: Bearer …` header, when it has one.
    static func bearerSecret(_ request: Request) -> Substring.UTF8View? {
        guard let header = request.headers[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return Substring(header).utf8.dropFirst(7)
    }

    /// The stored token of a secret's hash, as the store said it at most `freshness` ago.
    private func lookUp(_ hash: String) async throws -> APIToken? {
        let now = ContinuousClock.now
        if let known = remembered.withLock({ $0[hash] }), now - known.checked < Self.freshness { return known.token }
        let token = try await store.token(secretHash: hash)
        remembered.withLock { remembered in
            if remembered.count >= Self.rememberedLimit { remembered.removeAll(keepingCapacity: true) }
            remembered[hash] = (token, now)
        }
        return token
    }

    /// Leaves the token's use to be written when neither the store nor this process has recorded one within
    /// `usageInterval`.
    private func recordUse(of token: APIToken, at now: String) {
        let instant = ContinuousClock.now
        let due = recordedUses.withLock { recorded in
            if let last = recorded[token.name], instant - last < Self.usageInterval { return false }
            recorded[token.name] = instant
            return true
        }
        guard due else { return }
        if let lastUsed = token.lastUsedAt.flatMap(Timestamp.date(from:)), let current = Timestamp.date(from: now),
            current.timeIntervalSince(lastUsed) < Self.usageInterval.timeInterval
        {
            return
        }
        usage.record(token.name, at: now)
    }
}
