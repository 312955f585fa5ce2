/// A category and its derived product count.
public struct CategoryRow: Sendable, Equatable {
    public var name: String
    public var productCount: Int

    public init(name: String, productCount: Int) {
        self.name = name
        self.productCount = productCount
    }
}
