/// A DummyJSON product; `price` is decimal text, written into JSON verbatim.
public struct FixtureProduct: Sendable {
    public var sku: String
    public var title: String
    public var description: String
    public var category: String
    public var brand: String?
    public var price: String
    public var stock: Int
    public var updatedAt: String
}
