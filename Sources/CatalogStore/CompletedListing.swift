import CatalogModel

/// A feed's complete listing, ready to be mirrored into the store in one transaction.
public struct CompletedListing: Sendable {
    public enum Records: Sendable {
        case films([Film])
        case products([Product])
        /// Products staged through the store, or written while they were read (a streamed listing): the staging
        /// completes the run itself (`ImportStaging.complete`).
        case stagedProducts(any ImportStaging)
        /// Every page answered 304 (or came back byte for byte): this many records, none changed, nothing to write.
        case unchanged(Int)
    }

    public var records: Records
    public var pages: [FeedPageState]

    /// The page states the store keeps for the next run; nil to keep those it has. An unchanged listing's pages are
    /// the stored ones, which the store gave only because the feed's family was at their version when the run began:
    /// recorded again at the commit's version, they would hide a write made meanwhile, which the next run must put back.
    public var pagesToRecord: [FeedPageState]? {
        if case .unchanged = records { return nil }
        return pages
    }

    public init(records: Records, pages: [FeedPageState]) {
        self.records = records
        self.pages = pages
    }
}
