import CatalogModel

/// A stored film with its derived counts.
public struct FilmRow: Sendable, Equatable {
    public var film: Film
    public var counts: [FilmLinkKind: Int]
    /// `films` (the feed) or `api`.
    public var source: String
    /// The change that last wrote this film.
    public var changedSeq: Int64

    public init(film: Film, counts: [FilmLinkKind: Int], source: String, changedSeq: Int64) {
        self.film = film
        self.counts = counts
        self.source = source
        self.changedSeq = changedSeq
    }
}

/// A stored product.
public struct ProductRow: Sendable, Equatable {
    public var product: Product
    /// `products` (the feed) or `api`.
    public var source: String
    public var changedSeq: Int64

    public init(product: Product, source: String, changedSeq: Int64) {
        self.product = product
        self.source = source
        self.changedSeq = changedSeq
    }
}

/// A category and its derived product count.
public struct CategoryRow: Sendable, Equatable {
    public var name: String
    public var productCount: Int

    public init(name: String, productCount: Int) {
        self.name = name
        self.productCount = productCount
    }
}
