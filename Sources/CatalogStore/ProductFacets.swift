/// The values of each facet asked for, the largest counts first and ties by value, with the versions they reflect.
public struct ProductFacets: Sendable {
    public var counts: [(field: ProductFacetField, values: [FacetValue])]
    public var versions: StoreVersions

    public init(counts: [(field: ProductFacetField, values: [FacetValue])], versions: StoreVersions) {
        self.counts = counts
        self.versions = versions
    }

    /// The most values of one facet a request may ask for, and how many it gets unless it asks.
    public static let maximumSize = 50
    public static let defaultSize = 10
}
