/// The columns a resource's search reads, by rank: a match in an earlier group ranks above one in a later group
/// (a product named after a word above one whose brand is, above one that mentions it in its description).
public struct SearchFields: Sendable {
    /// Groups of columns, best first.
    public let ranks: [[String]]

    /// Every searched column, in rank order.
    public var columns: [String] { ranks.flatMap { $0 } }

    /// The columns of the ranks up to `rank`, together: a row's rank is the first whose columns hold its match.
    public func columns(throughRank rank: Int) -> [String] { ranks.prefix(rank + 1).flatMap { $0 } }

    public static let products = SearchFields(ranks: [["name"], ["brand"], ["description", "category"]])
    public static let films = SearchFields(ranks: [["title"], ["director", "producer"], ["opening_crawl"]])
    public static let categories = SearchFields(ranks: [["name"]])
}
