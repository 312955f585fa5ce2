/// The layouts a product feed may have.
public enum ProductFeedFormat: String, Sendable {
    /// `{products, total, skip, limit}`, paged with `?limit=&skip=`.
    case dummyJSON = "dummyjson"
    /// One JSON array of products.
    case array
    /// One product object per line.
    case ndjson
}
