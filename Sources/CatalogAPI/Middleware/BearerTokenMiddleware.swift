import Hummingbird

/// Guards the write routes it is added to with the bearer token (403 when none is configured, 401 when it is
/// missing or wrong), before the handler reads the body; read routes never see it.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: BearerToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try token.authorize(request)
        return try await next(request, context)
    }
}
