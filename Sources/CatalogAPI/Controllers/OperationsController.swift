import CatalogStore
import Hummingbird
import Prometheus

/// `/healthz`, `/readyz`, `/metrics`, `/openapi.yaml`.
struct OperationsController<Context: RequestContext> {
    let store: any CatalogStore
    let metrics: RequestMetrics
    /// nil: readiness does not depend on imports (`--stale-after off`, the default).
    let freshness: ImportFreshness?
    /// SHA-256 of `--metrics-token`; nil: `/metrics` is open (the default).
    let metricsTokenDigest: [UInt8]?

    func addRoutes(to router: Router<Context>) {
        router.get("healthz", use: health)
        router.get("readyz", use: ready)
        router.get("metrics", use: prometheus)
        router.get("openapi.yaml", use: openAPI)
    }

    /// The process is up and answering.
    @Sendable func health(_ request: Request, context: Context) async throws -> Response {
        JSONResponder.json(Array(#"{"status":"ok"}"#.utf8))
    }

    /// The store is open and fully migrated, and, with `--stale-after`, every configured source imported recently enough.
    @Sendable func ready(_ request: Request, context: Context) async throws -> Response {
        guard (try? await store.isMigrated()) == true else {
            throw Problem(.serviceUnavailable, type: "not-ready", detail: "the store is not open or not migrated yet")
        }
        if let freshness, let reason = freshness.staleness(lastSuccess: try await store.lastSuccessfulImports()) {
            throw Problem(.serviceUnavailable, type: "imports-stale", detail: reason)
        }
        return JSONResponder.json(Array(#"{"status":"ready"}"#.utf8))
    }

    @Sendable func prometheus(_ request: Request, context: Context) async throws -> Response {
        if let metricsTokenDigest {
            let secret = TokenAuthority.bearerSecret(request).map(Array.init) ?? []
            guard TokenSecret.constantTimeEqual(TokenSecret.digest(secret), metricsTokenDigest) else {
                throw Problem(
                    .unauthorized, type: "unauthorized", detail: "/metrics needs Authorization: Bearer <the --metrics-token secret>",
                    headers: [.wwwAuthenticate: "Bearer realm=\"catalogd-metrics\""])
            }
        }
        metrics.record(try await store.statistics())
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
    }

    /// The repository's `openapi.yaml`, compiled in by SwiftPM (`Sources/CatalogAPI/openapi.yaml` links to it).
    @Sendable func openAPI(_ request: Request, context: Context) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/yaml"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_yaml)))
    }
}
