import HTTPTypes
import Hummingbird
import Logging

/// Gives each request an id (the client's `X-Request-Id` when it is sane), logs one line per request
/// and records its metrics.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: RequestMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        let requestID: String
        if let clientID = Self.clientRequestID(request) {
            requestID = clientID
            context.logger[metadataKey: "hb.request.id"] = "\(clientID)"
        } else {
            requestID = context.id
        }
        var response = try await next(request, context)
        response.headers[HTTPField.Name.requestID] = requestID
        let duration = ContinuousClock.now - started
        let route = context.endpointPath ?? "unmatched"
        // Methods are client input: any other than the standard ones is counted as "other", so that a
        // hostile client cannot grow the metrics without bound.
        let method = RequestMetrics.standardMethods.contains(request.method) ? request.method.rawValue : "other"
        metrics.recordRequest(method: method, route: route, status: response.status.code, duration: duration)
        context.logger.info(
            "\(request.method) \(request.uri.path) \(response.status.code) in \(Self.milliseconds(duration))",
            metadata: [
                "http.method": "\(request.method)", "http.path": "\(request.uri.path)", "http.route": "\(route)",
                "http.status": .stringConvertible(response.status.code),
                "http.duration_ms": .stringConvertible(Double(Self.hundredthsOfAMillisecond(duration)) / 100),
            ])
        return response
    }

    /// Hundredths of a millisecond, rounded: 100,000 a second, 10^13 attoseconds each.
    static func hundredthsOfAMillisecond(_ duration: Duration) -> Int64 {
        duration.components.seconds * 100_000 + (duration.components.attoseconds + 5_000_000_000_000) / 10_000_000_000_000
    }

    /// `1.25 ms`: Foundation's duration formatting costs more than the rest of a cached response.
    static func milliseconds(_ duration: Duration) -> String {
        let hundredths = hundredthsOfAMillisecond(duration)
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) ms"
    }

    private static func clientRequestID(_ request: Request) -> String? {
        guard let value = request.headers[.requestID], (1...128).contains(value.utf8.count),
            value.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0))
            })
        else { return nil }
        return value
    }
}

extension HTTPField.Name {
    /// Correlates a response with the service's log lines.
    static let requestID = HTTPField.Name("X-Request-Id")!
}
