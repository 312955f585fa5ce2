/// The version of each resource family, read in one transaction.
public struct StoreVersions: Sendable, Equatable {
    public var films: Int64
    public var products: Int64
    public var imports: Int64
    /// The newest change token, what `GET /changes?since=` resumes from.
    public var lastSeq: Int64

    /// The version of `family`.
    public subscript(family: ResourceFamily) -> Int64 {
        switch family {
        case .films: films
        case .products: products
        case .imports: imports
        }
    }

    public init(films: Int64, products: Int64, imports: Int64, lastSeq: Int64) {
        self.films = films
        self.products = products
        self.imports = imports
        self.lastSeq = lastSeq
    }
}
