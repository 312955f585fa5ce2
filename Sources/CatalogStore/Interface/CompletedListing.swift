import CatalogModel

/// A feed's complete listing, ready to be mirrored into the store in one transaction.
public struct CompletedListing: Sendable {
    public enum Records: Sendable {
        case films([Film])
        case products([Product])
        case stagedProducts(any ImportStaging)
        /// Every page answered 304: this many records, none changed, nothing to write.
        case unchanged(Int)
    }

    public var records: Records
    public var pages: [FeedPageState]

    public init(records: Records, pages: [FeedPageState]) {
        self.records = records
        self.pages = pages
    }
}
