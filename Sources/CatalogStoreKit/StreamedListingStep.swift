import CatalogModel
import CatalogStore

/// What a streamed listing's transaction does with the next message from its run: write a batch, or finish with the
/// run's end. The run giving up ends it as `StreamedListingTransaction.Discarded`, and a feed silent for longer than
/// the wait as `StreamedListingAbandoned`, on both engines alike.
package enum StreamedListingStep<End: Sendable> {
    case batch([Product])
    case end(End)

    package init(_ message: BatchChannel<[Product], End>.Message, longestWait: Duration) throws {
        switch message {
        case .batch(let batch): self = .batch(batch)
        case .end(let end): self = .end(end)
        case .abort: throw StreamedListingTransaction<End>.Discarded()
        case .timedOut: throw StreamedListingAbandoned("no products from the feed for \(longestWait)")
        }
    }
}
