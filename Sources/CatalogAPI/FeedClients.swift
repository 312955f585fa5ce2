import Prometheus

/// Change-feed clients connected now, as Prometheus gauges: Server-Sent Events streams and waiting long polls.
struct FeedClients: Sendable {
    static var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "changes", metricName: "clients", unitName: "",
            helpText: "Change-feed clients connected now, by feed (stream, longpoll).")
    }

    let streams: Gauge
    let longPolls: Gauge

    init(registry: PrometheusCollectorRegistry) {
        streams = registry.makeGauge(descriptor: Self.descriptor, labels: [("feed", "stream")])
        longPolls = registry.makeGauge(descriptor: Self.descriptor, labels: [("feed", "longpoll")])
    }
}
