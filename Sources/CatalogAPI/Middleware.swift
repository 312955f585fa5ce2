import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Prometheus

/// Prometheus metrics of the service, in a registry owned by the application (no global state).
public struct RequestMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
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

    func recordRequest(method: String, route: String, status: Int, duration: Duration) {
        let labels = [("method", method), ("route", route), ("status", String(status))]
        registry.makeCounter(descriptor: Self.requests, labels: labels).increment()
        registry.makeDurationHistogram(
            descriptor: Self.requestDuration, labels: [("method", method), ("route", route)],
            buckets: [.microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(2)]
        ).record(duration)
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

/// Gives each request an id (the client's `X-Request-Id` when it is sane), logs one line per request
/// and records its metrics.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: RequestMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        let requestID = Self.clientRequestID(request) ?? context.id
        context.logger[metadataKey: "hb.request.id"] = "\(requestID)"
        var response = try await next(request, context)
        response.headers[HTTPField.Name.requestID] = requestID
        let duration = ContinuousClock.now - started
        let route = context.endpointPath ?? "unmatched"
        metrics.recordRequest(method: request.method.rawValue, route: route, status: response.status.code, duration: duration)
        context.logger.info(
            "\(request.method) \(request.uri.path) \(response.status.code) in \(duration.formatted(.units(allowed: [.milliseconds], fractionalPart: .show(length: 1))))"
        )
        return response
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
