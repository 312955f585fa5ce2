import Hummingbird

/// Cross-origin access for browsers: off unless origins are configured (`*` for any).
///
/// An allowed origin gets Hummingbird's CORS answer, preflights included; any other origin gets no CORS
/// headers, so browsers keep refusing it.
struct CrossOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowsAnyOrigin: Bool
    let origins: Set<String>
    private let cors = CORSMiddleware<Context>(
        allowOrigin: .originBased,
        allowHeaders: [.accept, .authorization, .contentType, .origin, .ifNoneMatch, .lastEventID, .requestID],
        allowMethods: [.get, .head, .post, .put, .delete, .options],
        exposedHeaders: [Self.exposedHeaders],
        maxAge: .seconds(600))
    /// What scripts may read from responses; Hummingbird's middleware names them only in preflights.
    private static var exposedHeaders: String { "ETag, Location, X-Catalog-Seq, X-Request-Id" }

    init(origins: [String]) {
        allowsAnyOrigin = origins.contains("*")
        self.origins = Set(origins)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], allowsAnyOrigin || origins.contains(origin) else {
            return try await next(request, context)
        }
        var response = try await cors.handle(request, context: context, next: next)
        if request.method != .options { response.headers[.accessControlExposeHeaders] = Self.exposedHeaders }
        return response
    }
}
