import CatalogModel
import CatalogStore
import Hummingbird

/// `/tokens`, for a `tokens:admin` token: `GET` lists the tokens (never a secret), `POST` creates one and shows its
/// secret once, `GET`/`DELETE /tokens/{name}` reads or revokes one. Not linked from `/`: it is for administrators.
struct TokensController<Context: RequestContext> {
    let authority: TokenAuthority
    let urls: RequestURLs
    /// The largest body `POST /tokens` reads.
    static var maximumBodyBytes: Int { 16 * 1024 }

    private var store: any CatalogStore { authority.store }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.post(use: create)
        group.get("{name}", use: get)
        group.delete("{name}", use: revoke)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        _ = try await authority.authorize(request, .tokensAdmin)
        let tokens = try await store.tokens()
        let base = urls.base(for: request)
        let bytes = Representations.wholeList(tokens) { Self.write($0, base: base, into: &$1) }
        return JSONResponder.unstored(JSONResponder.json(bytes))
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        _ = try await authority.authorize(request, .tokensAdmin)
        let name = try QueryReader.pathParameter("name", context)
        guard let token = try await store.tokens().first(where: { $0.name == name }) else { throw Problem.notFound("no token named '\(name)'") }
        return JSONResponder.unstored(JSONResponder.json(Representations.single { Self.write(token, base: urls.base(for: request), into: &$0) }))
    }

    /// `{"name", "scopes": [...], "expires": "90d"}` (`expires` optional) → 201 with the token and its `secret`.
    @Sendable func create(_ request: Request, context: Context) async throws -> Response {
        let admin = try await authority.authorize(request, .tokensAdmin)
        let json = try WriteSupport.parse(try await BodyReader.collect(request, limit: Self.maximumBodyBytes))
        guard case .string(let name)? = json["name"] else { throw Problem.badParameter("name", "the body needs \"name\": a string") }
        guard case .array(let values)? = json["scopes"] else {
            throw Problem.badParameter("scopes", "the body needs \"scopes\": an array of \(TokenScope.names)")
        }
        let scopes = try values.map { value -> String in
            guard case .string(let scope) = value else { throw Problem.badParameter("scopes", "each scope must be a string") }
            return scope
        }
        let expires: String?
        switch json["expires"] {
        case nil, .null?: expires = nil
        case .string(let text)?: expires = text
        default: throw Problem.badParameter("expires", "expires must be a duration such as \"90d\", or null")
        }
        let created: (token: APIToken, secret: String)
        do {
            created = try await TokenIssuer.create(store, name: name, scopes: scopes, expires: expires)
        } catch let refusal as TokenIssuer.Refusal {
            switch refusal {
            case .nameTaken: throw Problem(.conflict, type: "token-exists", detail: refusal.description)
            case .invalidName: throw Problem.badParameter("name", refusal.description)
            case .noScope, .unknownScope: throw Problem.badParameter("scopes", refusal.description)
            case .invalidExpiry: throw Problem.badParameter("expires", refusal.description)
            }
        }
        let base = urls.base(for: request)
        let bytes = Representations.single { Self.write(created.token, base: base, secret: created.secret, into: &$0) }
        context.logger.notice(
            "token \(created.token.name) created by \(admin.author)",
            metadata: ["token.name": "\(created.token.name)", "token.author": "\(admin.author)"])
        return JSONResponder.unstored(JSONResponder.json(bytes, status: .created, headers: [.location: Self.url(created.token.name, base: base)]))
    }

    @Sendable func revoke(_ request: Request, context: Context) async throws -> Response {
        let admin = try await authority.authorize(request, .tokensAdmin)
        let name = try QueryReader.pathParameter("name", context)
        guard try await store.revokeToken(name: name) else { throw Problem.notFound("no token named '\(name)'") }
        context.logger.notice("token \(name) revoked by \(admin.author)", metadata: ["token.name": "\(name)", "token.author": "\(admin.author)"])
        return Response(status: .noContent)
    }

    static func url(_ name: String, base: String) -> String { "\(base)/tokens/\(PathComponent.encode(name))" }

    /// `{"name", "scopes", "created_at", "last_used_at", "expires_at", "url"}`, and `secret` when it was just made.
    static func write(_ token: APIToken, base: String, secret: String? = nil, into writer: inout JSONWriter) {
        writer.objectStart()
        writer.member("name", token.name)
        writer.key("scopes")
        writer.arrayStart()
        for scope in token.scopes { writer.string(scope.rawValue) }
        writer.arrayEnd()
        for (name, value) in [("created_at", token.createdAt), ("last_used_at", token.lastUsedAt), ("expires_at", token.expiresAt)] {
            writer.member(name, value)
        }
        writer.member("url", url(token.name, base: base))
        if let secret {
            writer.member("secret", secret)
        }
        writer.objectEnd()
    }
}
