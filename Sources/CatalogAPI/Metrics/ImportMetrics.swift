import CatalogModel
import Foundation
import Prometheus

/// Prometheus metrics of import runs: whether imports keep up, and what they write.
struct ImportMetrics: Sendable {
    static var runs: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "import", metricName: "runs", unitName: "total", helpText: "Import runs by source and status.")
    }
    static var duration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "import", metricName: "duration", unitName: "seconds",
            helpText: "Time from the start of an import run to its recorded outcome, by source.")
    }
    static var rows: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "import", metricName: "rows", unitName: "total",
            helpText: "Rows written or refused by import runs, by source and outcome (inserted, updated, deleted, rejected).")
    }
    static var lastSuccess: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "import", metricName: "last_success", unitName: "timestamp_seconds",
            helpText: "Unix time at which the last successful import of each source finished.")
    }

    private static let durationBuckets: [Duration] = [
        .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5), .seconds(15), .seconds(60), .seconds(300),
    ]

    let registry: PrometheusCollectorRegistry

    /// Counts a finished run; a successful one also moves its source's last-success time.
    func record(_ report: ImportReport, duration: Duration) {
        let source = report.source.rawValue
        registry.makeCounter(descriptor: Self.runs, labels: [("source", source), ("status", report.status.rawValue)]).increment()
        registry.makeDurationHistogram(descriptor: Self.duration, labels: [("source", source)], buckets: Self.durationBuckets).record(duration)
        for (outcome, count) in [
            ("inserted", report.inserted), ("updated", report.updated), ("deleted", report.deleted), ("rejected", report.rejected),
        ] {
            registry.makeCounter(descriptor: Self.rows, labels: [("source", source), ("outcome", outcome)]).increment(by: Int64(count))
        }
        if report.status == .succeeded, let finished = report.finishedAt {
            recordSuccess(of: report.source, finishedAt: finished)
        }
    }

    /// Sets a source's last-success time from a stored report's `finished_at`.
    func recordSuccess(of source: FeedSource, finishedAt: String) {
        guard let date = Timestamp.date(from: finishedAt) else { return }
        registry.makeGauge(descriptor: Self.lastSuccess, labels: [("source", source.rawValue)]).set(date.timeIntervalSince1970)
    }
}
