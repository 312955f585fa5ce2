/// A slice of the history after a change token.
public struct ChangeSlice: Sendable {
    /// The most changes one slice holds.
    public static let maximumLimit = 10_000

    public var changes: [Change]
    /// The newest change token in the store.
    public var lastSeq: Int64
    /// How many matching changes come after the last one returned.
    public var pending: Int

    public init(changes: [Change], lastSeq: Int64, pending: Int) {
        self.changes = changes
        self.lastSeq = lastSeq
        self.pending = pending
    }
}
