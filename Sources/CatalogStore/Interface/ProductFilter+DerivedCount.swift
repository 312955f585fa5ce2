extension ProductFilter {
    /// How the derived per-category counts answer the count of the products this filter selects, when they do (a
    /// filter by category or stock or both, or none): the expression over `categories` to read, and the category
    /// to read it for (nil: summed over all). Every engine keeps `product_count` and `in_stock_count` by triggers.
    public var derivedCount: (expression: String, category: String?)? {
        var others = self
        (others.category, others.inStock) = (nil, nil)
        guard others.isEmpty else { return nil }
        let expression =
            switch inStock {
            case nil: "product_count"
            case true?: "in_stock_count"
            case false?: "product_count - in_stock_count"
            }
        return (expression, category)
    }
}
