import CatalogStore
import Logging
import Prometheus
import ServiceLifecycle

/// Keeps the sets of the words most products hold (`FrequentTerms`) at the products version reads see: reads them at
/// start-up, and again once the products have changed and then stayed as they are for `quietPeriod` (an import's
/// batches end first), or have kept changing for `longestStale`.
///
/// Until they are read again, a read makes the sets it finds exact at its own snapshot from the changes since them
/// (`CurrentFrequentTerms`), which costs it in proportion to those changes: reading the sets again keeps that cost
/// small. A refresh rests `restFactor` times its own duration before the next, so that under steady writes the sets
/// take at most a fifth of a core.
struct FrequentTermsService: Service {
    static let pollInterval: Duration = .seconds(1)
    static let quietPeriod: Duration = .seconds(2)
    static let longestStale: Duration = .seconds(60)
    static let restFactor = 4
    /// How long a failed refresh rests before the next try.
    static let restAfterFailure: Duration = .seconds(10)

    let store: any CatalogStore
    let policy: FrequentTermPolicy
    let registry: PrometheusCollectorRegistry
    let logger: Logger

    func run() async throws {
        var seen: Int64?
        var unchangedSince = ContinuousClock.now
        var staleSince: ContinuousClock.Instant?
        var restUntil = ContinuousClock.now
        while !Task.isShuttingDownGracefully {
            do {
                let products = try await store.currentVersions().products
                let now = ContinuousClock.now
                if products != seen { (seen, unchangedSince) = (products, now) }
                if products == store.frequentTermsVersion {
                    staleSince = nil
                } else {
                    let since = staleSince ?? now
                    staleSince = since
                    let settled = store.frequentTermsVersion == nil || now - unchangedSince >= Self.quietPeriod || now - since >= Self.longestStale
                    if settled, now >= restUntil {
                        restUntil = ContinuousClock.now + Self.restAfterFailure
                        let took = try await refresh()
                        restUntil = ContinuousClock.now + took * Self.restFactor
                    }
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("reading the frequent terms' sets failed: \(error)")
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.pollInterval) }
            } catch {
                return
            }
        }
    }

    /// Reads the sets again, stopped by a graceful shutdown; returns how long it took.
    private func refresh() async throws -> Duration {
        let started = ContinuousClock.now
        let terms = try await cancelWhenGracefulShutdown { [store, policy] in try await store.refreshFrequentTerms(policy) }
        let took = ContinuousClock.now - started
        let milliseconds = Int(took / .milliseconds(1))
        registry.makeGauge(descriptor: Self.words).set(Double(terms.terms.count))
        registry.makeGauge(descriptor: Self.version).set(Double(terms.productsVersion))
        logger.info(
            "read the sets of \(terms.terms.count) frequent words at products version \(terms.productsVersion) in \(milliseconds) ms",
            metadata: [
                "search.frequent_terms": "\(terms.terms.count)", "search.frequent_terms_ms": "\(milliseconds)",
                "store.products_version": "\(terms.productsVersion)",
            ])
        return took
    }

    static var words: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "search", metricName: "frequent_terms", unitName: "", helpText: "Words that have a set (FrequentTerms)."
        )
    }
    static var version: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "catalogd", subsystem: "search", metricName: "frequent_terms_version", unitName: "",
            helpText: "The products version the frequent words' sets were read at; a read at a later one applies the changes since.")
    }
}
