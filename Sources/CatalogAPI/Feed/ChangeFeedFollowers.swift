import Prometheus

/// Change-feed clients: those connected now, as Prometheus gauges by feed (Server-Sent Events streams and waiting
/// long polls), the slots they take, and the count of those refused for want of one.
public struct ChangeFeedFollowers: Sendable {
    /// Change-feed streams and waiting long polls served at once by default (`--max-followers`).
    public static let defaultLimit = 10_000

    static var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "changes", metricName: "clients", unitName: "",
            helpText: "Change-feed clients connected now, by feed (stream, longpoll).")
    }
    static var refusedDescriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "changes", metricName: "clients_refused", unitName: "total",
            helpText: "Change-feed streams and long polls answered 503 because --max-followers were connected.")
    }

    let streams: Gauge
    let longPolls: Gauge
    let refused: Counter
    let slots: RequestSlots

    init(registry: PrometheusCollectorRegistry, maximumFollowers: Int = Self.defaultLimit) {
        streams = registry.makeGauge(descriptor: Self.descriptor, labels: [("feed", "stream")])
        longPolls = registry.makeGauge(descriptor: Self.descriptor, labels: [("feed", "longpoll")])
        refused = registry.makeCounter(descriptor: Self.refusedDescriptor)
        slots = RequestSlots(limit: maximumFollowers)
    }

    /// A follower's slot, or a 503 naming the limit when none is free.
    func takeSlot() throws(Problem) -> RequestSlots.Slot {
        guard let slot = slots.take() else {
            refused.increment()
            throw Problem(
                .serviceUnavailable, type: "too-many-followers",
                detail: "\(slots.limit) change-feed followers are connected, the most this server takes (--max-followers); try again shortly",
                headers: [.retryAfter: "5"])
        }
        return slot
    }
}
