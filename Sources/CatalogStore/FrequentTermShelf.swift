import Synchronization

/// Where a store keeps the `FrequentTerms` its reads use: the latest read, which a read makes exact at its own
/// snapshot (`CurrentFrequentTerms`).
public final class FrequentTermShelf: Sendable {
    private let installed = Mutex<FrequentTerms?>(nil)
    /// The newest products version a read found past the sets'.
    private let newestSeen = Atomic<Int64>(0)

    public init() {}

    /// The sets, whatever products version they were read at.
    public var latest: FrequentTerms? {
        installed.withLock { $0 }
    }

    public func install(_ terms: FrequentTerms) {
        installed.withLock { $0 = terms }
    }

    /// The products version of the installed sets, nil before the first.
    public var productsVersion: Int64? {
        installed.withLock { $0?.productsVersion }
    }

    /// Notes a products version a read found: sets older than it are known to be behind.
    public func saw(productsVersion: Int64) {
        newestSeen.max(productsVersion, ordering: .relaxed)
    }

    /// Whether `terms` may be of the newest products version: no read has found a newer one.
    public func mayBeNewest(_ terms: FrequentTerms) -> Bool {
        terms.productsVersion >= newestSeen.load(ordering: .relaxed)
    }
}
