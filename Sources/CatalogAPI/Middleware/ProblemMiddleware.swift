import CatalogStore
import Hummingbird
import NIOHTTP1

/// Turns every error thrown below it into problem+json; first in the chain so nothing escapes it.
///
/// Errors that are not a `Problem` or an `HTTPError` are the service's fault: they are logged once
/// with the request id and answered 500 without internals.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return problem.response()
        } catch let error as HTTPError {
            return Self.problem(for: error, request: request).response()
        } catch let invalid as InvalidQuery {
            return Problem.badParameter(invalid.parameter, invalid.detail).response()
        } catch let unknown as UnknownCursor {
            return Problem(.notFound, type: "unknown-cursor", detail: unknown.detail, extensions: [("parameter", .string("cursor"))]).response()
        } catch let broken as HTTPParserError {
            // The client broke HTTP in the middle of its body (or hung up there): its fault, not the service's.
            return Problem(.badRequest, type: "malformed-body", detail: "the request body is not valid HTTP (\(broken))").response()
        } catch let unavailable as StoreUnavailable {
            context.logger.warning("request failed: \(unavailable)")
            return Problem(
                .serviceUnavailable, type: "store-unavailable", detail: "the store cannot be reached just now; retry shortly",
                headers: [.retryAfter: "2"]
            ).response()
        } catch is CancellationError {
            return Problem(.serviceUnavailable, type: "shutting-down", detail: "the service is shutting down; retry shortly").response()
        } catch {
            context.logger.error("request failed: \(String(reflecting: error))")
            return Problem(.internalServerError, type: "internal", detail: "the service failed to answer; the error is in its log").response()
        }
    }

    static func problem(for error: HTTPError, request: Request) -> Problem {
        switch error.status {
        case .notFound:
            return .notFound("no resource at \(request.uri.path)")
        case .methodNotAllowed:
            return Problem(
                .methodNotAllowed, type: "method-not-allowed", detail: "\(request.method) is not allowed on \(request.uri.path)",
                headers: error.headers)
        case .contentTooLarge:
            return Problem(.contentTooLarge, type: "body-too-large", detail: error.body ?? "the request body is too large")
        default:
            return Problem(error.status, type: "http-\(error.status.code)", detail: error.body ?? error.status.reasonPhrase, headers: error.headers)
        }
    }
}
