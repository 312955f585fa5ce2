import Hummingbird

/// Answers 405 with `Allow` when a known path is asked with a method it does not take; the router
/// alone would answer 404, as if the resource did not exist.
///
/// Add it after the routes: it needs them all, and Hummingbird applies a middleware to the routes added
/// after it and to the not-found answer, so it runs only for requests no route took, the only ones it concerns.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The order of methods in `Allow`; any other method follows them, alphabetically.
    private static var methodOrder: [HTTPRequest.Method] { [.get, .head, .post, .put, .delete, .patch, .options] }

    /// Each path the service answers, with the methods it takes.
    let routes: [(path: RouterPath, allow: String)]

    /// Takes the router's routes; HEAD is listed with every GET, as the router answers it (`.autoGenerateHeadEndpoints`).
    init(routes: [Router<Context>.RouteDescription]) {
        var methods: [(path: RouterPath, methods: Set<HTTPRequest.Method>)] = []
        for route in routes {
            let taken: Set<HTTPRequest.Method> = route.method == .get ? [.get, .head] : [route.method]
            if let index = methods.firstIndex(where: { $0.path == route.path }) {
                methods[index].methods.formUnion(taken)
            } else {
                methods.append((route.path, taken))
            }
        }
        self.routes = methods.map { path, methods in
            let others = methods.subtracting(Self.methodOrder).sorted { $0.rawValue < $1.rawValue }
            return (path, (Self.methodOrder.filter(methods.contains) + others).map(\.rawValue).joined(separator: ", "))
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let segments = request.uri.path.split(separator: "/")
            guard let route = routes.first(where: { Self.path($0.path, matches: segments) }) else { throw error }
            throw HTTPError(.methodNotAllowed, headers: [.allow: route.allow])
        }
    }

    /// Whether `segments` name `path`: a literal component must be equal, a parameter takes any one segment.
    private static func path(_ path: RouterPath, matches segments: [Substring]) -> Bool {
        // A component is literal exactly when it equals the literal of its own text; `{id}` is not the literal "{id}".
        path.components.count == segments.count
            && zip(path.components, segments).allSatisfy { component, segment in
                component != .path(Substring(component.description)) || component.description == segment
            }
    }
}
