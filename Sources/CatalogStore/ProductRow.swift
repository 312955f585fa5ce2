import CatalogModel

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
