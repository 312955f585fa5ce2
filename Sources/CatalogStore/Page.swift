/// One page of a list, read in one transaction together with the versions it reflects.
///
/// `Rows` is what the page's rows were made into: an array of stored rows, or (for products) whatever a
/// `ProductPageRows` made of them as they were read.
public struct Page<Rows: Sendable>: Sendable {
    public var rows: Rows
    /// How many rows match the filters, over all pages.
    public var count: Int
    public var nextCursor: String?
    public var previousCursor: String?
    public var versions: StoreVersions
    /// How the page of a search was read (`SearchPlanner`); nil for a list without a search.
    public var searchRead: SearchRead?
    /// The words of the search that were corrected, and what was searched in their place; empty when none was.
    public var corrections: [SearchCorrection]
    /// The search the page read in place of the typed one, when words were corrected (`ProductFilter.correctedSearch`).
    public var correctedSearch: SearchQuery?

    public init(
        rows: Rows, count: Int, nextCursor: String?, previousCursor: String?, versions: StoreVersions, searchRead: SearchRead? = nil,
        corrections: [SearchCorrection] = [], correctedSearch: SearchQuery? = nil
    ) {
        self.rows = rows
        self.count = count
        self.nextCursor = nextCursor
        self.previousCursor = previousCursor
        self.versions = versions
        self.searchRead = searchRead
        self.corrections = corrections
        self.correctedSearch = correctedSearch
    }
}
