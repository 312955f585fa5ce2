/// A change token older than the retained history: the client must re-list and resume from `lastSeq`.
public struct HistoryGone: Error, Sendable, Equatable {
    public var since: Int64
    /// Tokens from here on can be resumed.
    public var horizon: Int64
    public var lastSeq: Int64

    public init(since: Int64, horizon: Int64, lastSeq: Int64) {
        self.since = since
        self.horizon = horizon
        self.lastSeq = lastSeq
    }
}
