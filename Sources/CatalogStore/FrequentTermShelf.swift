import Synchronization

/// Where a store keeps the `FrequentTerms` its reads use: the latest read, which a read makes exact at its own
/// snapshot (`CurrentFrequentTerms`).
public final class FrequentTermShelf: Sendable {
    private let installed = Mutex<FrequentTerms?>(nil)

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
}
