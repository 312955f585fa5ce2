import CatalogModel
import Foundation

/// Whether every configured source has imported successfully recently enough (`--stale-after`).
///
/// A source that never succeeded is measured from the start of the service, so a new instance is ready
/// while its first imports run, and turns unready only when they have failed for `staleAfter`.
struct ImportFreshness: Sendable {
    let sources: [FeedSource]
    let staleAfter: Duration
    let serviceStarted: Date

    /// Why the service should not take traffic, or nil when every source is fresh.
    func staleness(lastSuccess: [FeedSource: String], now: Date = Date()) -> String? {
        let limit = staleAfter.timeInterval
        let stale = sources.compactMap { source -> String? in
            let finished = lastSuccess[source].flatMap(Timestamp.date(from:))
            guard now.timeIntervalSince(finished ?? serviceStarted) > limit else { return nil }
            guard let finished else { return "\(source.rawValue) has not imported successfully since the service started" }
            return "the last successful import of \(source.rawValue) finished at \(Timestamp.string(from: finished))"
        }
        guard !stale.isEmpty else { return nil }
        return stale.joined(separator: "; ") + ", more than --stale-after (\(Int(limit)) s) ago"
    }
}
