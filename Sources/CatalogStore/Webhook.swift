/// A subscription to the history: the changes of `entities` after `deliveredSeq` are POSTed to `url`, in seq order,
/// each message signed with `secret`, the next sent once the last was answered 2xx (`catalogd`'s webhooks).
public struct Webhook: Sendable, Equatable {
    /// Where a subscription stands; its raw value is how the API and the store name it.
    public enum State: String, Sendable, CaseIterable {
        /// Delivering, or retrying a failed message.
        case active
        /// Given up after failing for too long; it waits for `resume`.
        case failing
        /// The history no longer holds the changes after its position (pruned): it can never deliver them, as
        /// `/changes?since=` answers 410 for such a position.
        case gone
    }

    public var id: Int64
    public var url: String
    /// The kinds of change delivered, in `Change.Entity` order; every kind when it holds them all.
    public var entities: [Change.Entity]
    /// The key of its signatures, `whsec_` and base64, shown once, when it is made.
    public var secret: String
    public var createdAt: String
    /// The last seq whose change (of `entities`) has been delivered, or that came before the subscription.
    public var deliveredSeq: Int64
    /// The last seq of the message under way, sent and not yet answered 2xx: its retries carry the same changes and
    /// the same `webhook-id`, across restarts too. Nil when no message is under way.
    public var messageLastSeq: Int64?
    public var state: State
    /// Failed attempts since the last success.
    public var failures: Int
    /// When the first of those failures happened (ISO 8601 UTC).
    public var failingSince: String?
    public var lastError: String?
    /// When the next attempt of a failed message is due (ISO 8601 UTC); nil: as soon as there is something to send.
    public var nextAttemptAt: String?

    public init(
        id: Int64, url: String, entities: [Change.Entity], secret: String, createdAt: String, deliveredSeq: Int64,
        messageLastSeq: Int64? = nil, state: State = .active, failures: Int = 0, failingSince: String? = nil, lastError: String? = nil,
        nextAttemptAt: String? = nil
    ) {
        self.id = id
        self.url = url
        self.entities = entities
        self.secret = secret
        self.createdAt = createdAt
        self.deliveredSeq = deliveredSeq
        self.messageLastSeq = messageLastSeq
        self.state = state
        self.failures = failures
        self.failingSince = failingSince
        self.lastError = lastError
        self.nextAttemptAt = nextAttemptAt
    }
}

extension Webhook {
    /// `entities` as a column holds them: their names, comma-separated.
    public static func storedEntities(_ entities: [Change.Entity]) -> String {
        entities.map(\.rawValue).joined(separator: ",")
    }

    /// A subscription as an engine stores it; a state or an entity this build does not know is an `UnreadableStoredValue`.
    public init(
        id: Int64, url: String, storedEntities: String, secret: String, createdAt: String, deliveredSeq: Int64, messageLastSeq: Int64?,
        storedState: String, failures: Int, failingSince: String?, lastError: String?, nextAttemptAt: String?
    ) throws {
        let entities = try storedEntities.split(separator: ",").map { name in
            guard let entity = Change.Entity(rawValue: String(name)) else {
                throw UnreadableStoredValue(column: "webhooks.entities", value: storedEntities)
            }
            return entity
        }
        guard let state = State(rawValue: storedState) else { throw UnreadableStoredValue(column: "webhooks.state", value: storedState) }
        self.init(
            id: id, url: url, entities: entities, secret: secret, createdAt: createdAt, deliveredSeq: deliveredSeq, messageLastSeq: messageLastSeq,
            state: state, failures: failures, failingSince: failingSince, lastError: lastError, nextAttemptAt: nextAttemptAt)
    }
}
