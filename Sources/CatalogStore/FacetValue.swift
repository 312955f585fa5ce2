/// One value of a facet and how many of the selected rows hold it.
public struct FacetValue: Sendable, Equatable {
    public var value: String
    public var count: Int

    public init(value: String, count: Int) {
        self.value = value
        self.count = count
    }
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
