import Synchronization

/// Where a store keeps the `FrequentTerms` its reads use: the latest refreshed, handed only to a read of the same
/// products version.
public final class FrequentTermShelf: Sendable {
    /// The sets, and the latest products version a read told (`noteRead`).
    private let state = Mutex<(installed: FrequentTerms?, seenProductsVersion: Int64)>((nil, 0))

    public init() {}

    /// The sets, when they were read at `productsVersion`.
    public func terms(at productsVersion: Int64) -> FrequentTerms? {
        state.withLock { $0.installed?.productsVersion == productsVersion ? $0.installed : nil }
    }

    /// The sets, whatever products version they were read at: for a read that checks the version itself.
    public var latest: FrequentTerms? {
        state.withLock { $0.installed }
    }

    /// The sets, unless a read has seen a later products version than theirs (`noteRead`): for a read that checks
    /// the version after it used them and reads again when it differs, which is then the exception.
    public var unlessOutdated: FrequentTerms? {
        state.withLock { state in state.installed.flatMap { $0.productsVersion >= state.seenProductsVersion ? $0 : nil } }
    }

    /// Tells the shelf the products version a read saw.
    public func noteRead(productsVersion: Int64) {
        state.withLock { $0.seenProductsVersion = max($0.seenProductsVersion, productsVersion) }
    }

    public func install(_ terms: FrequentTerms) {
        state.withLock { $0.installed = terms }
    }

    /// The products version of the installed sets, nil before the first.
    public var productsVersion: Int64? {
        state.withLock { $0.installed?.productsVersion }
    }
}
