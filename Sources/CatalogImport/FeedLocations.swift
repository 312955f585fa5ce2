import CatalogModel

/// Where each feed comes from. An empty URL disables that feed.
public struct FeedLocations: Sendable {
    public static let publicFilms = "https://swapi.dev/api/films/"
    public static let publicProducts = "https://dummyjson.com/products"
    /// DummyJSON page size the importer asks for.
    public static let defaultProductPageSize = 100

    public var films: String
    public var products: String
    public var productPageSize: Int

    public init(films: String = publicFilms, products: String = publicProducts, productPageSize: Int = defaultProductPageSize) {
        self.films = films
        self.products = products
        self.productPageSize = productPageSize
    }

    public func location(of source: FeedSource) -> String? {
        let location = source == .films ? films : products
        return location.isEmpty ? nil : location
    }
}
