import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Prometheus
import Synchronization

/// Prometheus metrics of the service, in a registry owned by the application (no global state).
public struct RequestMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let instruments = RequestInstruments()
    let feedClients: FeedClients

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        feedClients = FeedClients(registry: registry)
    }

    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "http", metricName: "requests", unitName: "total",
            helpText: "HTTP requests by method, route and status.")
    }
    static var requestDuration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "http", metricName: "request_duration", unitName: "seconds",
            helpText: "Time from request to response head, by method and route.")
    }
    static var storeRows: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "store", metricName: "rows", unitName: "", helpText: "Rows in each table of the store.")
    }
    static var storeSize: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "store", metricName: "size", unitName: "bytes", helpText: "Size of the SQLite file.")
    }

    static let standardMethods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .patch, .options]
    private static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(2),
    ]

    func recordRequest(method: String, route: String, status: Int, duration: Duration) {
        let key = RequestInstruments.Key(method: method, route: route, status: status)
        let (counter, histogram) = instruments.lookup(key) {
            (
                registry.makeCounter(descriptor: Self.requests, labels: [("method", method), ("route", route), ("status", String(status))]),
                registry.makeDurationHistogram(
                    descriptor: Self.requestDuration, labels: [("method", method), ("route", route)], buckets: Self.durationBuckets)
            )
        }
        counter.increment()
        histogram.record(duration)
    }

    func record(_ statistics: StoreStatistics) {
        for (table, rows) in [
            ("films", statistics.films), ("products", statistics.products), ("categories", statistics.categories), ("changes", statistics.changes),
        ] {
            registry.makeGauge(descriptor: Self.storeRows, labels: [("table", table)]).set(Double(rows))
        }
        registry.makeGauge(descriptor: Self.storeSize).set(Double(statistics.bytes))
    }
}

/// The counter and histogram of each (method, route, status), found once: the registry's own lookup
/// assembles names and label strings on every call, and this runs for every request.
final class RequestInstruments: Sendable {
    struct Key: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    private let known = Mutex<[Key: (Counter, DurationHistogram)]>([:])

    func lookup(_ key: Key, make: () -> (Counter, DurationHistogram)) -> (Counter, DurationHistogram) {
        if let found = known.withLock({ $0[key] }) { return found }
        let made = make()
        return known.withLock { known in
            if let found = known[key] { return found }
            known[key] = made
            return made
        }
    }
}

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
