/// What the upstream said about one page of a listing, kept for conditional requests next time.
public struct FeedPageState: Sendable, Equatable {
    public var url: String
    public var etag: String?
    public var lastModified: String?
    /// The page's `next` link (SWAPI) so a 304 page can still be followed.
    public var nextURL: String?
    /// The listing's total as the page gave it (DummyJSON).
    public var total: Int?
    /// How many records the page held, so a 304 page is counted (as unchanged) without being fetched.
    public var records: Int
    /// What the page's bytes are remembered by (the importer's SHA-256 of the body, under the revision of how it reads
    /// records): a body with the same digest next time is the same page, as a 304 would say, from an upstream that
    /// sends no validators.
    public var digest: String?

    public init(url: String, etag: String?, lastModified: String?, nextURL: String?, total: Int?, records: Int, digest: String? = nil) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.nextURL = nextURL
        self.total = total
        self.records = records
        self.digest = digest
    }
}
