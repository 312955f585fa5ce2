import CatalogModel
import Hummingbird

/// With `--require-read-token`: every read needs a token with the `read` scope, but the probes and the metrics an
/// orchestrator scrapes without one, the pages' stylesheet, script and icon, which hold nothing of the catalogue, and
/// `/tokens` and `/webhooks`, which need `tokens:admin` and `webhooks:admin` instead. Writes check their own scopes in their handlers.
struct ReadTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    static var openPaths: Set<String> { ["/healthz", "/readyz", "/metrics"] }
    static var adminPaths: [String] { ["/tokens", "/webhooks"] }

    let authority: TokenAuthority

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if request.method == .get || request.method == .head, !Self.openPaths.contains(path), !path.hasPrefix(PageAsset.directory),
            !Self.adminPaths.contains(where: path.hasPrefix)
        {
            _ = try await authority.authorize(request, .read)
        }
        return try await next(request, context)
    }
}
