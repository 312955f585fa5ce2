import CatalogStore

/// The first pages of all products in one of their orderings, with no filter and no search (`?ordering=stock`), as
/// statements the generic-plan pool's connections prepare once and plan once for any page size
/// (`PostgresGenericPlanPool`; such a read takes a connection of that pool alone): parsing and planning such a page
/// took twice as long as running it. Such a page is the start of its ordering's index (`PostgresPlanTests` asks for
/// that plan with scans and sorts made a last resort; `EXPLAIN` of each at a million products, without, gave the same).
///
/// postgres-nio names a prepared statement and its SQL by its type, so each of these statements is a type of its
/// own: a `PostgresPreparedRead` of a number (`PlainPageNumber`), its place in `statements`.
enum PostgresPlainPages {
    /// The first page of each plain ordering of products, ascending and descending, as
    /// `PostgresListing.pageStatement` makes it for a request without filters. Not a page from a cursor: planned once
    /// for any cursor, its probe for rows behind the cursor read the whole table, where a cursor's own values make the
    /// planner take the index.
    static let statements: [String] = ListOrdering.products.fields.filter { $0 != ListOrdering.relevance }.flatMap { field in
        [field, "-" + field].map { ordering in
            var conditions = PostgresConditions()
            let count = PostgresCatalogStore.productCount(ProductFilter().query, &conditions)
            // An ordering of `fields`: the statement is always made.
            return (try? PostgresListing.products.pageStatement(PageRequest(ordering: ordering), conditions: conditions, count: count))?.page ?? ""
        }
    }

    private static let numbers = Dictionary(uniqueKeysWithValues: statements.enumerated().map { ($0.element, $0.offset) })

    /// The number of the statement whose SQL is `sql`; nil for any other.
    static func number(of sql: String) -> Int? {
        numbers[sql]
    }
}
