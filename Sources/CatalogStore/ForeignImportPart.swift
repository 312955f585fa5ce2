/// A staged listing or a claim (an import's, the webhooks' sender's) made by another store than the one asked to use
/// it: a mistake in the caller, reported as an error rather than a crash.
public struct ForeignImportPart: Error, Sendable, CustomStringConvertible {
    /// What was handed over: "staged listing", "import claim" or "webhook claim".
    public var part: String
    /// The store that was asked.
    public var store: String

    public init(_ part: String, store: String) {
        self.part = part
        self.store = store
    }

    public var description: String { "the \(part) comes from another store than \(store)" }
}
