import CatalogStore
import Logging
import Prometheus
import ServiceLifecycle

/// Keeps the sets of the words most products hold (`FrequentTerms`) at the products version reads see: reads them
/// whole at start-up, then brings them forward by the changes since them (`CatalogStore.advanceFrequentTerms`), work in
/// proportion to the changes, not to the catalogue. It looks as soon as the store's watch tells of a commit
/// (`ChangeNotifier`, within `pollInterval` whatever it says), every `followInterval` while the products keep
/// changing, and within `followInterval` of a read asking for sets it lacks (`CatalogStore.frequentTermsWanted`, a
/// typed prefix reads found wide, whose next reads then count from them). A read applies the changes since the sets
/// itself, at a cost per change (`CurrentFrequentTerms`), so the sets follow closely, and under an import's thousands
/// of changes a second a read finds a few hundred at most. An import that commits its changes at once has the reads
/// answered by the engine alone until the sets are brought forward: waking at its commit, rather than at the next
/// look, takes up to a second off that. On PostgreSQL a write of a few changes brings the sets of its own process
/// forward itself, as it commits (`PostgresCatalogStore.recordingTransaction`): the service then finds them at the
/// newest version, and brings forward those of other processes' writes and of imports.
///
/// They are read whole again when they cannot be brought forward (more than `CurrentFrequentTerms.advanceLimit`
/// changes came at once, or the history since them was pruned), and when the changes since the last whole read
/// exceed a tenth of the rows (`wholeReadShare`), for the words most products hold to be chosen again. Such a read
/// waits until the products have stayed as they are for `quietPeriod` (an import's batches end first), or have kept
/// changing for `longestStale`, and rests `restFactor` times its own duration before the next, so that under steady
/// writes it takes at most a fifth of a core. Until then, a read makes the sets it finds exact at its own snapshot
/// (`CurrentFrequentTerms`).
struct FrequentTermsService: Service {
    static let followInterval: Duration = .milliseconds(100)
    static let quietPeriod: Duration = .seconds(2)
    static let longestStale: Duration = .seconds(60)
    static let restFactor = 4
    /// One in this many rows changed since the last whole read has the sets read whole again: the words most products
    /// hold are chosen then, and the vocabulary's counts (which decide how far a prefix is spelled out) taken.
    static let wholeReadShare: Int64 = 10
    /// How long a failed refresh rests before the next try.
    static let restAfterFailure: Duration = .seconds(10)

    let store: any CatalogStore
    let notifier: ChangeNotifier
    let policy: FrequentTermPolicy
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    /// The longest wait between looks when nothing commits and no read asks.
    var pollInterval: Duration = .seconds(1)

    func run() async throws {
        var seen: Int64?
        var unchangedSince = ContinuousClock.now
        var staleSince: ContinuousClock.Instant?
        var restUntil = ContinuousClock.now
        var drifted = false
        // Whether the sets may be brought forward: not once that failed, until they are read whole again.
        var advancing = true
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            let lookStarted = ContinuousClock.now
            var following = false
            // The history's newest seq, when this look read it: a commit after it ends the wait for the next look.
            var lastSeq: Int64?
            do {
                let versions = try await store.currentVersions()
                lastSeq = versions.lastSeq
                var products = versions.products
                let now = ContinuousClock.now
                if products != seen { (seen, unchangedSince) = (products, now) }
                // Sets a read asked for are added by bringing the sets forward, at its own snapshot.
                if advancing, let version = store.frequentTermsVersion, version != products || store.frequentTermsWanted {
                    if let advanced = await advance() {
                        drifted = (advanced.historySeq - advanced.wholeReadSeq) * Self.wholeReadShare > advanced.largestRowNumber + 1
                        // A write that came after the version read above is one the sets now hold.
                        products = max(products, advanced.productsVersion)
                        following = true
                    } else {
                        advancing = false
                    }
                }
                if products == store.frequentTermsVersion, !drifted {
                    staleSince = nil
                } else {
                    let since = staleSince ?? now
                    staleSince = since
                    let settled = store.frequentTermsVersion == nil || now - unchangedSince >= Self.quietPeriod || now - since >= Self.longestStale
                    if settled, now >= restUntil {
                        restUntil = ContinuousClock.now + Self.restAfterFailure
                        let took = try await refresh()
                        (drifted, advancing) = (false, true)
                        restUntil = ContinuousClock.now + took * Self.restFactor
                    }
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("reading the frequent terms' sets failed: \(error)")
            }
            do {
                if !following, let seq = lastSeq { await waitForCommitOrAsk(after: seq, askWakes: advancing) }
                // Never two looks closer than `followInterval`, whatever the watch says (a store put back from an older
                // copy has a history behind the seqs it told of), and a failed look rests `pollInterval`.
                let pause = lastSeq == nil ? pollInterval : Self.followInterval
                try await cancelWhenGracefulShutdown { try await Task.sleep(until: lookStarted + pause) }
            } catch {
                return
            }
        }
    }

    /// Waits for a commit past `seq`, for `pollInterval`, or, when `askWakes`, for a read to ask for sets the installed
    /// ones lack, whichever comes first: the store is asked every `followInterval`, a lock's read.
    private func waitForCommitOrAsk(after seq: Int64, askWakes: Bool) async {
        let until = ContinuousClock.now + pollInterval
        while ContinuousClock.now < until, !(askWakes && store.frequentTermsWanted), !Task.isShuttingDownGracefully, !Task.isCancelled {
            let newest = await cancelWhenGracefulShutdown { [notifier] in
                await notifier.wait(after: seq, timeout: min(Self.followInterval, until - ContinuousClock.now))
            }
            // A timeout tells the newest seq the watch has told, which may be behind `seq`.
            guard let newest, newest <= seq else { return }
        }
    }

    /// Brings the sets forward, stopped by a graceful shutdown; nil when they must be read whole: the store said so,
    /// or bringing them forward failed (a whole read is then tried, as at start-up).
    private func advance() async -> FrequentTerms? {
        let started = ContinuousClock.now
        let from = store.frequentTermsVersion
        let advanced: FrequentTerms?
        do {
            advanced = try await cancelWhenGracefulShutdown { [store] in try await store.advanceFrequentTerms() }
        } catch {
            if !Task.isShuttingDownGracefully { logger.warning("bringing the frequent terms' sets forward failed: \(error)") }
            return nil
        }
        guard let terms = advanced else { return nil }
        let milliseconds = Int((ContinuousClock.now - started) / .milliseconds(1))
        registry.makeGauge(descriptor: Self.version).set(Double(terms.productsVersion))
        logger.debug(
            "brought the frequent terms' sets forward to products version \(terms.productsVersion) in \(milliseconds) ms",
            metadata: [
                "search.frequent_terms_ms": "\(milliseconds)", "store.products_version": "\(terms.productsVersion)",
                "search.frequent_terms_from_version": "\(from.map(String.init) ?? "none")",
            ])
        return terms
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
