/// A field whose values a products list counts among the rows it selects, for a shop's sidebar.
public enum ProductFacetField: String, CaseIterable, Sendable {
    case category
    case brand
}
