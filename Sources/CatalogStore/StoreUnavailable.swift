/// The store cannot be reached just now (its database server is down, restarting or out of connections): a
/// condition that passes, answered 503 with `Retry-After`, never 500. Its text names no password.
public struct StoreUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store, as its `description` names it.
    public var store: String
    public var reason: String

    public init(store: String, reason: String) {
        self.store = store
        self.reason = reason
    }

    public var description: String { "the store at \(store) is unavailable: \(reason)" }
}
