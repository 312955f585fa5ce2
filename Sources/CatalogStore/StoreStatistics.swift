/// Sizes of the store, for operations.
public struct StoreStatistics: Sendable, Equatable {
    public var films: Int
    public var products: Int
    public var categories: Int
    public var changes: Int
    /// Space the store takes in its storage engine (the file, or the database on a server).
    public var bytes: Int

    public init(films: Int, products: Int, categories: Int, changes: Int, bytes: Int) {
        self.films = films
        self.products = products
        self.categories = categories
        self.changes = changes
        self.bytes = bytes
    }
}
