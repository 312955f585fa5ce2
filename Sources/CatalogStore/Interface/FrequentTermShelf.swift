import Synchronization

/// Where a store keeps the `FrequentTerms` its reads use: the latest refreshed, handed only to a read of the same
/// products version.
public final class FrequentTermShelf: Sendable {
    private let installed = Mutex<FrequentTerms?>(nil)

    public init() {}

    /// The sets, when they were read at `productsVersion`.
    public func terms(at productsVersion: Int64) -> FrequentTerms? {
        installed.withLock { $0?.productsVersion == productsVersion ? $0 : nil }
    }

    /// The sets, whatever products version they were read at: for a statement that checks the version itself.
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
