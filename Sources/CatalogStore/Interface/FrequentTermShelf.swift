import Synchronization

/// Where a store keeps the `FrequentTerms` its reads use: the latest refreshed, handed only to a read of the same
/// products version.
public final class FrequentTermShelf: Sendable {
    private let installed = Mutex<FrequentTerms?>(nil)
    private let seenProductsVersion = Mutex<Int64>(0)

    public init() {}

    /// The sets, when they were read at `productsVersion`.
    public func terms(at productsVersion: Int64) -> FrequentTerms? {
        installed.withLock { $0?.productsVersion == productsVersion ? $0 : nil }
    }

    /// The sets, whatever products version they were read at: for a read that checks the version itself.
    public var latest: FrequentTerms? {
        installed.withLock { $0 }
    }

    /// The sets, unless a read has seen a later products version than theirs (`noteRead`): for a read that checks
    /// the version after it used them and reads again when it differs, which is then the exception.
    public var unlessOutdated: FrequentTerms? {
        let seen = seenProductsVersion.withLock { $0 }
        return installed.withLock { $0.flatMap { $0.productsVersion >= seen ? $0 : nil } }
    }

    /// Tells the shelf the products version a read saw.
    public func noteRead(productsVersion: Int64) {
        seenProductsVersion.withLock { $0 = max($0, productsVersion) }
    }

    public func install(_ terms: FrequentTerms) {
        installed.withLock { $0 = terms }
    }

    /// The products version of the installed sets, nil before the first.
    public var productsVersion: Int64? {
        installed.withLock { $0?.productsVersion }
    }
}
