import Hummingbird

/// Answers 405 with `Allow` when a known path is asked with a method it does not take; the router
/// alone would answer 404, as if the resource did not exist.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Each path the service answers, `*` standing for one segment, with the methods it takes (HEAD with every GET).
    static var routes: [(path: [Substring], allow: String)] {
        let read = "GET, HEAD"
        return [
            ([], read), (["films"], read), (["films", "*"], "GET, HEAD, PUT, DELETE"), (["products"], "GET, HEAD, POST"),
            (["products", "*"], "GET, HEAD, PUT, DELETE"), (["categories"], read), (["categories", "*"], read), (["changes"], read),
            (["imports"], "GET, HEAD, POST"), (["imports", "*"], read), (["healthz"], read), (["readyz"], read), (["metrics"], read),
            (["openapi.yaml"], read),
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let segments = request.uri.path.split(separator: "/")
            guard
                let route = Self.routes.first(where: { route in
                    route.path.count == segments.count && zip(route.path, segments).allSatisfy { $0 == "*" || $0 == $1 }
                })
            else { throw error }
            throw HTTPError(.methodNotAllowed, headers: [.allow: route.allow])
        }
    }
}
