/// A listing staged by another store than the one asked to apply it: a mistake in the caller, reported as an
/// error rather than a crash.
public struct ForeignStaging: Error, Sendable, CustomStringConvertible {
    /// The store that was asked.
    public var store: String

    public init(store: String) {
        self.store = store
    }

    public var description: String { "the listing was staged by another store than \(store)" }
}
