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

    public init(
        category: String? = nil, brand: String? = nil, minimumPrice: Price? = nil, maximumPrice: Price? = nil, inStock: Bool? = nil,
        search: String? = nil
    ) {
        self.category = category
        self.brand = brand
        self.minimumPrice = minimumPrice
        self.maximumPrice = maximumPrice
        self.inStock = inStock
        self.search = search
    }

    /// Whether no filter is set: the whole listing.
    public var isEmpty: Bool {
        category == nil && brand == nil && minimumPrice == nil && maximumPrice == nil && inStock == nil && search == nil
    }
}
