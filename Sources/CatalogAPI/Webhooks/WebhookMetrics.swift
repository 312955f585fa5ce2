import Prometheus

/// The webhooks' metrics: attempts by result, and how many changes of the history come after each subscription's
/// delivered position (of every entity), as the sending process last read them (other replicas show none).
struct WebhookMetrics: Sendable {
    static var deliveries: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "webhook", metricName: "deliveries", unitName: "total",
            helpText: "Attempts to deliver a webhook's message, by result (success: a 2xx; failure: anything else).")
    }

    static var lag: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "webhook", metricName: "lag", unitName: "changes",
            helpText: "Changes in the history after a subscription's delivered position, by webhook id, as the sending process last read them.")
    }

    private let registry: PrometheusCollectorRegistry
    private let successes: Counter
    private let failures: Counter

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        successes = registry.makeCounter(descriptor: Self.deliveries, labels: [("result", "success")])
        failures = registry.makeCounter(descriptor: Self.deliveries, labels: [("result", "failure")])
    }

    func recordAttempt(succeeded: Bool) {
        (succeeded ? successes : failures).increment()
    }

    func recordLag(of webhook: Int64, changes: Int) {
        registry.makeGauge(descriptor: Self.lag, labels: [("webhook", String(webhook))]).set(Double(changes))
    }

    /// Drops the lag of a subscription that is no longer sent (deleted, given up, or sent by another process now).
    func forgetLag(of webhook: Int64) {
        registry.unregisterGauge(registry.makeGauge(descriptor: Self.lag, labels: [("webhook", String(webhook))]))
    }
}
