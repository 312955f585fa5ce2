import CatalogStore
import HTTPTypes
import Logging
import Prometheus

/// Prometheus metrics of the service, in a registry owned by the application (no global state).
public struct RequestMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let instruments = RequestInstruments()
    let followers: ChangeFeedFollowers
    /// Connections closed because they took no bytes for the send timeout.
    let sendTimeouts: Counter
    /// How the pages of searches are read.
    let searchPlans: SearchPlans
    /// Every request answered, for work that yields to a busy API.
    let answered = AnsweredRequests()

    /// Metrics in `registry`; `logger` tells how each page of a search was read, at debug level.
    public init(
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), maximumFollowers: Int = ChangeFeedFollowers.defaultLimit,
        logger: Logger = Logger(label: "catalogd")
    ) {
        self.registry = registry
        followers = ChangeFeedFollowers(registry: registry, maximumFollowers: maximumFollowers)
        sendTimeouts = registry.makeCounter(descriptor: Self.sendTimeouts)
        searchPlans = SearchPlans(registry: registry, logger: logger)
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
    static var sendTimeouts: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "http", metricName: "send_timeouts", unitName: "total",
            helpText: "Connections closed because they took no bytes for --send-timeout (change-feed followers that stopped reading among them).")
    }
    static var storeRows: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "store", metricName: "rows", unitName: "", helpText: "Rows in each table of the store.")
    }
    static var storeSize: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "store", metricName: "size", unitName: "bytes", helpText: "Space the store takes in its storage engine."
        )
    }

    static let standardMethods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .patch, .options]
    private static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(2),
    ]

    func recordRequest(method: String, route: String, status: Int, duration: Duration) {
        answered.record()
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
