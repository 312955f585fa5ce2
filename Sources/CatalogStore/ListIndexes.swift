/// An index that gives a list's rows in some order: the key's own, which each engine names its way, or one named
/// alike on every engine.
public enum ListIndex: Sendable, Equatable {
    case key
    case named(String)
}

/// The indexes that give a list's rows in each order: an engine that is told which index to read (SQLite's
/// `INDEXED BY`) reads these; one that plans from statistics has them to choose from.
public struct ListIndexes: Sendable {
    /// For each ordering field, the index that holds every row in that order, with the key last.
    public let orderings: [String: ListIndex]
    /// For each column an equality condition holds, the index on (that column, key).
    public let keyOrderings: [String: String]

    public static let products = ListIndexes(
        orderings: [
            "serial_code": .key, "name": .named("products_by_name"), "price": .named("products_by_price"),
            "category": .named("products_by_category"), "stock": .named("products_by_stock"),
            "updated_at": .named("products_by_updated_at"),
        ],
        keyOrderings: ["category": "products_by_category", "brand": "products_by_brand", "stock": "products_by_stock"])

    /// The index a page in `field`'s order walks, when conditions hold `equalityColumns` to one value each: in the
    /// key's order, the index of such a column, which holds its rows by key; otherwise the ordering's own; nil when
    /// no index gives that order.
    public func index(equalityColumns: [String], field: String, in ordering: ListOrdering) -> ListIndex? {
        if field == ordering.keyField, let index = equalityColumns.lazy.compactMap({ keyOrderings[$0] }).first {
            return .named(index)
        }
        return orderings[field]
    }
}
