import CatalogModel

public struct FilmFilter: Sendable {
    public var director: String?
    /// Words matched against title, director, producer and opening crawl (`SearchQuery`, `SearchFields.films`).
    public var search: String?

    public init(director: String? = nil, search: String? = nil) {
        self.director = director
        self.search = search
    }
}

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

public struct CategoryFilter: Sendable {
    /// Words matched against the name (`SearchQuery`).
    public var search: String?

    public init(search: String? = nil) {
        self.search = search
    }
}

/// The `search` text every filter takes.
public enum SearchText {
    /// The longest text a store is asked to find, in bytes: engines bound the length of a match pattern, and no
    /// one searches for a page of text.
    public static let maximumBytes = 200
}
