import CatalogStore
import Logging
import Prometheus

/// Counts the pages of searches by how the store read them (`SearchRead`, as `SearchPlanner` planned it), and logs each
/// at debug level: which plan a kind of request gets, and how often, is visible without a profiler.
struct SearchPlans: Sendable {
    static var plans: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "search", metricName: "plans", unitName: "total",
            helpText: "Pages of searches by how they were read (nothing, keyset, best_rank_first, word_entries, matches_*, walk).")
    }

    /// Every read's counter, made at once so that /metrics lists each plan from the start.
    private let counters: [SearchRead: Counter]
    private let logger: Logger

    init(registry: PrometheusCollectorRegistry, logger: Logger) {
        counters = Dictionary(
            uniqueKeysWithValues: SearchRead.allCases.map { read in
                (read, registry.makeCounter(descriptor: Self.plans, labels: [("plan", read.rawValue)]))
            })
        self.logger = logger
    }

    /// Counts the page of a search `read` answered; nothing for a list without a search.
    func record(_ read: SearchRead?) {
        guard let read else { return }
        counters[read]?.increment()
        logger.debug("read a page of a search: \(read.rawValue)", metadata: ["search.plan": "\(read.rawValue)"])
    }
}
