/// A list request described once for every engine: the conditions its filters put on the rows, its search, how
/// its exact count is read and which index gives its rows in each order. Each engine renders it into its own SQL
/// (SQLite's `Conditions`, PostgreSQL's `PostgresConditions`) and runs the keyset walk (`KeysetComparison`) or the
/// ranked walk (`RankedWalk`) the page's ordering asks for.
public struct ListQuery: Sendable {
    public var conditions: [ListCondition]
    public var search: SearchQuery?
    public var count: ListCount

    public init(conditions: [ListCondition], search: SearchQuery?, count: ListCount) {
        self.conditions = conditions
        self.search = search
        self.count = count
    }
}

/// How a list's exact count over all pages is read, without reading the rows where something smaller answers.
public enum ListCount: Sendable, Equatable {
    /// From the per-category counts every engine keeps by triggers (`product_count`, `in_stock_count`): the
    /// expression over `categories` to read, for one category, or summed over all when nil.
    case derived(expression: String, category: String?)
    /// By counting the selected rows: a search's from its index, each engine's as it can.
    case rows
}

extension ProductFilter {
    /// This filter's list request. Counts: a filter by category or stock or both, or none, from the derived
    /// counts; any other by counting the rows an index range or the search index selects.
    public var query: ListQuery {
        var conditions: [ListCondition] = []
        if let category { conditions.append(.equals("category", .text(category))) }
        if let brand { conditions.append(.equals("brand", .text(brand))) }
        if let minimumPrice { conditions.append(.atLeast("price_micros", .integer(minimumPrice.micros))) }
        if let maximumPrice { conditions.append(.atMost("price_micros", .integer(maximumPrice.micros))) }
        if let inStock { conditions.append(inStock ? .positive("stock") : .zero("stock")) }
        return ListQuery(conditions: conditions, search: searchQuery, count: count)
    }

    private var count: ListCount {
        var others = self
        (others.category, others.inStock) = (nil, nil)
        guard others.isEmpty else { return .rows }
        let expression =
            switch inStock {
            case nil: "product_count"
            case true?: "in_stock_count"
            case false?: "product_count - in_stock_count"
            }
        return .derived(expression: expression, category: category)
    }
}

extension FilmFilter {
    /// This filter's list request; a handful of films are counted row by row.
    public var query: ListQuery {
        ListQuery(conditions: director.map { [.equals("director", .text($0))] } ?? [], search: searchQuery, count: .rows)
    }
}

extension CategoryFilter {
    /// This filter's list request.
    public var query: ListQuery { ListQuery(conditions: [], search: searchQuery, count: .rows) }
}
