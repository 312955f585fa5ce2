import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import CatalogAPI

@Suite("Named tokens: scopes per route, authors, revocation across replicas, expiry, secrets kept secret")
struct TokenTests {
    /// The routes over `store` with `bootstrap` as the `--api-token` secret, both feeds disabled.
    static func router(
        _ store: any CatalogStore, bootstrap: String? = "bootstrap-secret", requiresReadToken: Bool = false, metricsToken: String? = nil,
        logger: Logger = Logger(label: "catalogd-tests")
    ) -> Router<BasicRequestContext> {
        feedlessRouter(store, logger: logger) { configuration in
            configuration.apiToken = bootstrap
            configuration.requiresReadToken = requiresReadToken
            configuration.metricsToken = metricsToken
        }
    }

    static func bearer(_ secret: String) -> HTTPFields { [.authorization: "Bearer \(secret)", .contentType: "application/json"] }

    /// Every route that needs a scope, with a body it accepts, and the scope it needs.
    static let guardedRoutes: [(method: HTTPRequest.Method, uri: String, body: String, scope: TokenScope)] = [
        (.put, "/products/T-1", #"{"name": "t", "category": "c", "price": 1}"#, .productsWrite),
        (.delete, "/products/T-1", "", .productsWrite),
        (.post, "/products", #"[{"serial_code": "T-2", "name": "t", "category": "c", "price": 1}]"#, .productsWrite),
        (.put, "/films/1", #"{"title": "t", "release_date": "1977-05-25"}"#, .filmsWrite),
        (.delete, "/films/1", "", .filmsWrite),
        (.post, "/imports", #"{"source": "films"}"#, .importsRun),
        (.get, "/tokens", "", .tokensAdmin),
        (.post, "/tokens", #"{"name": "made-by-admin", "scopes": ["read"]}"#, .tokensAdmin),
        (.get, "/tokens/nobody", "", .tokensAdmin),
        (.delete, "/tokens/nobody", "", .tokensAdmin),
        (.get, "/webhooks", "", .webhooksAdmin),
        (.post, "/webhooks", #"{"url": "http://127.0.0.1:9/hook"}"#, .webhooksAdmin),
        (.get, "/webhooks/1", "", .webhooksAdmin),
        (.delete, "/webhooks/1", "", .webhooksAdmin),
        (.get, "/webhooks/1/deliveries", "", .webhooksAdmin),
        (.post, "/webhooks/1/resume", "", .webhooksAdmin),
    ]

    @Test(arguments: StoreBackend.available) func everyGuardedRouteNeedsItsScopeAndNoOther(_ backend: StoreBackend) async throws {
        let testStore = try await TestStore.open(backend)
        defer { testStore.remove() }
        var secrets: [TokenScope: String] = [:]
        for scope in TokenScope.allCases {
            secrets[scope] = try await TokenIssuer.create(
                testStore.store, name: "only-\(scope.rawValue.replacingOccurrences(of: ":", with: "-"))", scopes: [scope.rawValue], expires: nil
            ).secret
        }
        let scoped = secrets
        try await Application(router: Self.router(testStore.store)).test(.router) { client in
            for route in Self.guardedRoutes {
                let anonymous = try await client.execute(uri: route.uri, method: route.method, body: ByteBuffer(string: route.body))
                #expect(anonymous.status == .unauthorized, "\(route.method) \(route.uri) without a token")
                #expect(anonymous.headers[.wwwAuthenticate] == "Bearer realm=\"catalogd\", scope=\"\(route.scope.rawValue)\"")
                for (scope, secret) in scoped {
                    let response = try await client.execute(
                        uri: route.uri, method: route.method, headers: Self.bearer(secret), body: ByteBuffer(string: route.body))
                    if scope == route.scope {
                        #expect(![.unauthorized, .forbidden].contains(response.status), "\(route.method) \(route.uri) with \(scope)")
                    } else {
                        #expect(response.status == .forbidden, "\(route.method) \(route.uri) with \(scope)")
                        #expect(try json(response)["scope"] == .string(route.scope.rawValue))
                        #expect(try json(response)["type"] == .string("https://catalogd.dev/problems/insufficient-scope"))
                    }
                }
                let bootstrap = try await client.execute(
                    uri: route.uri, method: route.method, headers: Self.bearer("bootstrap-secret"), body: ByteBuffer(string: route.body))
                #expect(![.unauthorized, .forbidden].contains(bootstrap.status), "\(route.method) \(route.uri) with the bootstrap secret")
            }
        }
    }

    @Test(arguments: StoreBackend.available) func theAuthorOfAChangeIsItsTokensName(_ backend: StoreBackend) async throws {
        let testStore = try await TestStore.open(backend)
        defer { testStore.remove() }
        try await Application(router: Self.router(testStore.store)).test(.router) { client in
            let created = try await client.execute(
                uri: "/tokens", method: .post, headers: Self.bearer("bootstrap-secret"),
                body: ByteBuffer(string: #"{"name": "merchandising", "scopes": ["products:write", "imports:run"], "expires": "90d"}"#))
            #expect(created.status == .created)
            #expect(created.headers[.cacheControl] == "no-store")
            guard case .string(let secret)? = try json(created)["secret"] else { Issue.record("no secret"); return }
            #expect(secret.hasPrefix("catd_") && secret.count == 5 + 43)
            let put = try await client.execute(
                uri: "/products/M-1", method: .put, headers: Self.bearer(secret),
                body: ByteBuffer(string: #"{"name": "m", "category": "c", "price": 2}"#))
            #expect(put.status == .created)
            _ = try await client.execute(
                uri: "/products/M-2", method: .put, headers: Self.bearer("bootstrap-secret"),
                body: ByteBuffer(string: #"{"name": "n", "category": "c", "price": 2}"#))
            let authors = try await testStore.store.changes(since: 0, limit: 10).changes.map(\.author)
            #expect(authors == ["token:merchandising", "token:bootstrap"])
            let started = try await client.execute(
                uri: "/imports", method: .post, headers: Self.bearer(secret), body: ByteBuffer(string: #"{"source": "films"}"#))
            #expect(started.status == .conflict)  // no films feed here: the start is refused after the scope is granted
            let listed = String(buffer: try await client.execute(uri: "/tokens", method: .get, headers: Self.bearer("bootstrap-secret")).body)
            #expect(listed.contains(#""name":"merchandising","scopes":["products:write","imports:run"]"#))
            #expect(!listed.contains(secret) && !listed.contains("secret"))
        }
    }

    @Test(arguments: StoreBackend.available) func aRunStartedThroughTheAPIRecordsWhoStartedIt(_ backend: StoreBackend) async throws {
        let testStore = try await TestStore.open(backend)
        defer { testStore.remove() }
        let report = try await testStore.store.beginImport(source: .products, startedBy: "token:nightly")
        #expect(report.startedBy == "token:nightly")
        #expect(try await testStore.store.importReport(id: report.id).0?.startedBy == "token:nightly")
        let scheduled = try await testStore.store.beginImport(source: .films)
        #expect(try await testStore.store.importReports(page: PageRequest()).rows.map(\.startedBy) == [nil, "token:nightly"])
        #expect(scheduled.startedBy == nil)
    }

    @Test(arguments: StoreBackend.available) func aRevokedTokenIsRefusedByAnotherReplicaWithinASecond(_ backend: StoreBackend) async throws {
        let testStore = try await TestStore.open(backend)
        defer { testStore.remove() }
        let replica = try await testStore.openAnother()
        defer { Task { try? await replica.close() } }
        let (_, secret) = try await TokenIssuer.create(testStore.store, name: "partner", scopes: ["products:write"], expires: nil)
        try await Application(router: Self.router(testStore.store)).test(.router) { first in
            try await Application(router: Self.router(replica)).test(.router) { second in
                let body = #"{"name": "p", "category": "c", "price": 3}"#
                let before = try await second.execute(
                    uri: "/products/P-1", method: .put, headers: Self.bearer(secret), body: ByteBuffer(string: body))
                #expect(before.status == .created)
                let revoked = try await first.execute(uri: "/tokens/partner", method: .delete, headers: Self.bearer("bootstrap-secret"))
                #expect(revoked.status == .noContent)
                // Every request that starts a second or more after the revocation is refused, however long each takes
                // on a loaded machine; those in between may still be taken.
                let revokedAt = ContinuousClock.now
                var answers: [(started: Duration, status: HTTPResponse.Status)] = []
                // Bounded: at most 200 requests, and it stops once one has started after the second.
                for _ in 0..<200 where answers.last.map({ $0.started < .seconds(1) }) ?? true {
                    let started = ContinuousClock.now - revokedAt
                    let response = try await second.execute(
                        uri: "/products/P-1", method: .put, headers: Self.bearer(secret), body: ByteBuffer(string: body))
                    answers.append((started, response.status))
                    try await Task.sleep(for: .milliseconds(50))
                }
                let late = answers.filter { $0.started >= .seconds(1) }
                #expect(!late.isEmpty)
                #expect(late.allSatisfy { $0.status == .unauthorized }, "\(answers)")
                let again = try await first.execute(uri: "/tokens/partner", method: .delete, headers: Self.bearer("bootstrap-secret"))
                #expect(again.status == .notFound)
            }
        }
    }

    @Test(arguments: StoreBackend.available) func anExpiredTokenIsUnauthorized(_ backend: StoreBackend) async throws {
        let testStore = try await TestStore.open(backend)
        defer { testStore.remove() }
        let (expired, current) = ("catd_expired-secret", "catd_current-secret")
        for (name, secret, expiry) in [("old", expired, "2000-01-01T00:00:00Z"), ("new", current, "2999-01-01T00:00:00Z")] {
            let token = APIToken(name: name, scopes: [.productsWrite], createdAt: "2000-01-01T00:00:00Z", expiresAt: expiry)
            #expect(try await testStore.store.createToken(token, secretHash: TokenSecret.hash(secret.utf8)))
        }
        try await Application(router: Self.router(testStore.store)).test(.router) { client in
            let body = ByteBuffer(string: #"{"name": "e", "category": "c", "price": 3}"#)
            let refused = try await client.execute(uri: "/products/E-1", method: .put, headers: Self.bearer(expired), body: body)
            #expect(refused.status == .unauthorized)
            #expect(try json(refused)["detail"] == .string("the token 'old' expired at 2000-01-01T00:00:00Z"))
            #expect(refused.headers[.wwwAuthenticate] != nil)
            let accepted = try await client.execute(uri: "/products/E-1", method: .put, headers: Self.bearer(current), body: body)
            #expect(accepted.status == .created)
        }
    }

    @Test func badTokenRequestsAreClear400sAndNamesAreNotReused() async throws {
        let testStore = try await TestStore.open(.sqlite)
        defer { testStore.remove() }
        try await Application(router: Self.router(testStore.store)).test(.router) { client in
            let cases: [(String, String)] = [
                (#"{"name": "Bad Name", "scopes": ["read"]}"#, "name"), (#"{"name": "bootstrap", "scopes": ["read"]}"#, "name"),
                (#"{"name": "ok", "scopes": []}"#, "scopes"), (#"{"name": "ok", "scopes": ["write"]}"#, "scopes"),
                (#"{"name": "ok", "scopes": ["read"], "expires": "soon"}"#, "expires"), (#"{"scopes": ["read"]}"#, "name"),
            ]
            for (body, parameter) in cases {
                let response = try await client.execute(
                    uri: "/tokens", method: .post, headers: Self.bearer("bootstrap-secret"), body: ByteBuffer(string: body))
                #expect(response.status == .badRequest, "\(body)")
                #expect(try json(response)["parameter"] == .string(parameter), "\(body)")
            }
            let body = ByteBuffer(string: #"{"name": "twice", "scopes": ["read"]}"#)
            #expect(try await client.execute(uri: "/tokens", method: .post, headers: Self.bearer("bootstrap-secret"), body: body).status == .created)
            let second = try await client.execute(uri: "/tokens", method: .post, headers: Self.bearer("bootstrap-secret"), body: body)
            #expect(second.status == .conflict)
            #expect(try await testStore.store.tokens().map(\.name) == ["twice"])
        }
    }

    @Test(arguments: StoreBackend.available) func aPrivateCatalogueNeedsAReadTokenButForProbesAndMetrics(_ backend: StoreBackend) async throws {
        let testStore = try await TestStore.open(backend)
        defer { testStore.remove() }
        let (_, reader) = try await TokenIssuer.create(testStore.store, name: "reader", scopes: ["read"], expires: nil)
        let (_, writer) = try await TokenIssuer.create(testStore.store, name: "writer", scopes: ["products:write"], expires: nil)
        let (_, admin) = try await TokenIssuer.create(testStore.store, name: "admin", scopes: ["tokens:admin"], expires: nil)
        try await Application(router: Self.router(testStore.store, requiresReadToken: true)).test(.router) { client in
            for uri in ["/", "/products", "/films/1", "/changes", "/imports", "/categories", "/openapi.yaml"] {
                let anonymous = try await get(client, uri).status
                let unscoped = try await get(client, uri, headers: Self.bearer(writer)).status
                let read = try await get(client, uri, headers: Self.bearer(reader)).status
                #expect(anonymous == .unauthorized, "\(uri)")
                #expect(unscoped == .forbidden, "\(uri)")
                #expect(![.unauthorized, .forbidden].contains(read), "\(uri)")
            }
            for uri in ["/healthz", "/readyz", "/metrics", PageAsset.stylesheet.path] {
                let open = try await get(client, uri).status
                #expect(open == .ok, "\(uri)")
            }
            let tokens = try await get(client, "/tokens", headers: Self.bearer(admin)).status
            let readerAsAdmin = try await get(client, "/tokens", headers: Self.bearer(reader)).status
            #expect(tokens == .ok)
            #expect(readerAsAdmin == .forbidden)
        }
        try await Application(router: Self.router(testStore.store)).test(.router) { client in
            let open = try await get(client, "/products").status
            #expect(open == .ok)
        }
    }

    @Test func aMetricsTokenGuardsMetricsAloneAndNoWritersTokenOpensThem() async throws {
        let testStore = try await TestStore.open(.sqlite)
        defer { testStore.remove() }
        try await Application(router: Self.router(testStore.store, metricsToken: "scraper-secret")).test(.router) { client in
            let anonymous = try await get(client, "/metrics").status
            let bootstrap = try await get(client, "/metrics", headers: Self.bearer("bootstrap-secret")).status
            let scraper = try await get(client, "/metrics", headers: Self.bearer("scraper-secret")).status
            let health = try await get(client, "/healthz").status
            #expect(anonymous == .unauthorized)
            #expect(bootstrap == .unauthorized)
            #expect(scraper == .ok)
            #expect(health == .ok)
        }
    }

    @Test func theSecretIsInNoFileLogOrMetric() async throws {
        let testStore = try await TestStore.open(.sqlite)
        defer { testStore.remove() }
        let lines = RecordedLines()
        var logger = Logger(label: "catalogd-tests") { _ in RecordingLogHandler(lines: lines) }
        logger.logLevel = .debug
        try await Application(router: Self.router(testStore.store, logger: logger), logger: logger).test(.router) { client in
            let created = try await client.execute(
                uri: "/tokens", method: .post, headers: Self.bearer("bootstrap-secret"),
                body: ByteBuffer(string: #"{"name": "logged", "scopes": ["products:write"]}"#))
            guard case .string(let secret)? = try json(created)["secret"] else { Issue.record("no secret"); return }
            for index in 0..<3 {
                _ = try await client.execute(
                    uri: "/products/L-\(index)", method: .put, headers: Self.bearer(secret),
                    body: ByteBuffer(string: #"{"name": "l", "category": "c", "price": 1}"#))
            }
            _ = try await client.execute(uri: "/products/L-9", method: .delete, headers: Self.bearer(secret + "x"))
            let metrics = String(buffer: try await get(client, "/metrics").body)
            #expect(!metrics.isEmpty && !metrics.contains(secret))
            let logged = lines.all.joined(separator: "\n")
            #expect(logged.contains("token logged created by token:bootstrap"))
            #expect(logged.contains("PUT /products/L-0 by token:logged"))
            #expect(!logged.contains(secret) && !logged.contains("bootstrap-secret"))
            try await testStore.store.close()
            for file in try FileManager.default.contentsOfDirectory(atPath: testStore.directory.path) {
                let bytes = try Data(contentsOf: testStore.directory.appendingPathComponent(file))
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the secret")
                #expect(bytes.range(of: Data(secret.dropFirst(5).prefix(20).utf8)) == nil, "\(file) holds part of the secret")
                if file == "catalog.sqlite" { #expect(bytes.range(of: Data(TokenSecret.hash(secret.utf8).utf8)) != nil, "the hash is kept") }
            }
        }
    }
}
