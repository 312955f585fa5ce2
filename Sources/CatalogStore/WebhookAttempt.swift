/// One attempt to deliver a message of a webhook: what was sent, and how the receiver answered.
public struct WebhookAttempt: Sendable, Equatable {
    /// When it started (ISO 8601 UTC).
    public var at: String
    /// The message's `webhook-id`, the same on each of its retries.
    public var messageID: String
    /// The seqs of its first and last change.
    public var firstSeq: Int64
    public var lastSeq: Int64
    /// How many changes it held.
    public var changes: Int
    /// The receiver's HTTP status; nil when none came (refused, timed out, refused as a private address).
    public var status: Int?
    /// Why it failed, when it did.
    public var error: String?
    public var durationMilliseconds: Int

    public init(
        at: String, messageID: String, firstSeq: Int64, lastSeq: Int64, changes: Int, status: Int?, error: String?, durationMilliseconds: Int
    ) {
        self.at = at
        self.messageID = messageID
        self.firstSeq = firstSeq
        self.lastSeq = lastSeq
        self.changes = changes
        self.status = status
        self.error = error
        self.durationMilliseconds = durationMilliseconds
    }

    /// Whether the receiver took the message: a 2xx.
    public var succeeded: Bool { status.map { (200..<300).contains($0) } ?? false }

    /// The attempts each subscription keeps, newest first; older ones are deleted as new ones are recorded.
    public static let kept = 100
}
