/// What a list of categories is narrowed to (`CatalogStore.categories`).
public struct CategoryFilter: Sendable {
    /// Words matched against the name (`SearchQuery`).
    public var search: String?

    public init(search: String? = nil) {
        self.search = search
    }
}
