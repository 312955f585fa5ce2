/// A field whose values a products list counts among the rows it selects, for a shop's sidebar.
public enum ProductFacetField: String, CaseIterable, Sendable {
    case category
    case brand
}

/// One value of a facet and how many of the selected rows hold it.
public struct FacetValue: Sendable, Equatable {
    public var value: String
    public var count: Int

    public init(value: String, count: Int) {
        self.value = value
        self.count = count
    }
}

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

extension FacetValue {
    /// The `size` of `values` with the largest counts, ties in the order of the values' bytes (as SQL's binary
    /// collation sorts them).
    public static func largestFirst(_ values: [FacetValue], size: Int) -> [FacetValue] {
        let ranked = values.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.value.utf8.lexicographicallyPrecedes($1.value.utf8)
        }
        return Array(ranked.prefix(size))
    }
}
