import CatalogStore

/// What a subscription has yet to deliver, as far as its next message: the history read from its position, every
/// entity at once, and its own kept. Reading the whole history and keeping some costs a subtraction per slice for
/// what is left, where a count of one entity's changes would read the rest of the history each time.
struct WebhookBacklog {
    /// The changes of its next message: at most `WebhookMessage.maximumChanges`, and none after the message under way.
    let changes: [Change]
    /// How far the history was read: a change up to here that is not in `changes` is of another entity (or after the
    /// message under way).
    let readThrough: Int64
    /// The newest seq.
    let lastSeq: Int64

    /// The most changes read for one message, at most; a subscription to a rare entity catches up over several reads.
    static let readLimit = 10_000

    /// Throws `HistoryGone` when the history no longer holds the changes after the subscription's position.
    static func read(_ webhook: Webhook, from store: any CatalogStore) async throws -> WebhookBacklog {
        let wanted = Set(webhook.entities)
        let everyEntity = wanted.count == Change.Entity.allCases.count
        let sliceSize = everyEntity ? WebhookMessage.maximumChanges : 1_000
        var changes: [Change] = []
        var position = webhook.deliveredSeq
        var lastSeq = position
        var read = 0
        reading: while read < readLimit {
            let slice = try await store.changes(since: position, limit: sliceSize, entity: nil)
            lastSeq = slice.lastSeq
            read += slice.changes.count
            for change in slice.changes {
                if let end = webhook.messageLastSeq, change.seq > end { break reading }
                position = change.seq
                guard wanted.contains(change.entity) else { continue }
                changes.append(change)
                if changes.count == WebhookMessage.maximumChanges { break reading }
            }
            guard slice.pending > 0, !slice.changes.isEmpty else { break }
        }
        return WebhookBacklog(changes: changes, readThrough: position, lastSeq: lastSeq)
    }
}
