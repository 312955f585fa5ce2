import CatalogModel

/// What a list of products is narrowed to (`CatalogStore.products`, `productFacets`).
public struct ProductFilter: Sendable {
    public var category: String?
    public var brand: String?
    public var minimumPrice: Price?
    public var maximumPrice: Price?
    public var inStock: Bool?
    /// Words matched against name, brand, description and category (`SearchQuery`, `SearchFields.products`).
    public var search: String?
    /// Whether mistyped words of a search that matches nothing as typed are corrected (`SearchPlanner.corrected`).
    public var correctsTypos: Bool

    public init(
        category: String? = nil, brand: String? = nil, minimumPrice: Price? = nil, maximumPrice: Price? = nil, inStock: Bool? = nil,
        search: String? = nil, correctsTypos: Bool = true
    ) {
        self.category = category
        self.brand = brand
        self.minimumPrice = minimumPrice
        self.maximumPrice = maximumPrice
        self.inStock = inStock
        self.search = search
        self.correctsTypos = correctsTypos
    }

    /// The search with its mistyped words corrected, which a store reads in place of the typed one once it has found
    /// that the typed one matches nothing (`SearchPlanner.corrected`); nil until then.
    public var correctedSearch: SearchQuery?

    /// The search to match, when there is one: the corrected one, or the text as typed (empty text is none).
    public var searchQuery: SearchQuery? {
        if let correctedSearch { return correctedSearch }
        guard let search, !search.isEmpty else { return nil }
        return SearchQuery(search)
    }

    /// Whether no filter is set: the whole listing.
    public var isEmpty: Bool {
        category == nil && brand == nil && minimumPrice == nil && maximumPrice == nil && inStock == nil && search == nil
    }
}
