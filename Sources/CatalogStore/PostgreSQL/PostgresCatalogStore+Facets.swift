import CatalogStore
import PostgresNIO

extension PostgresCatalogStore {
    public func productFacets(_ filter: ProductFilter, fields: [ProductFacetField], size: Int) async throws -> ProductFacets {
        try await transaction(.read) { [logger] connection in
            var counts: [(field: ProductFacetField, values: [FacetValue])] = []
            for field in fields {
                var selected = PostgresListing.products.selecting(PostgresConditions(products: filter), filter.searchQuery)
                let column = field.rawValue
                selected.add("\(column) != ''")
                let sql =
                    field == .category && filter.isEmpty
                    ? "SELECT name, product_count::bigint FROM categories ORDER BY product_count DESC, name LIMIT \(selected.parameter(size))"
                    : """
                    SELECT \(column), COUNT(*) AS count FROM products \(selected.whereSQL)
                    GROUP BY \(column) ORDER BY count DESC, \(column) LIMIT \(selected.parameter(size))
                    """
                var values: [FacetValue] = []
                for try await (value, count) in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: selected.binds), logger: logger)
                    .decode((String, Int).self)
                {
                    values.append(FacetValue(value: value, count: count))
                }
                counts.append((field, values))
            }
            return ProductFacets(counts: counts, versions: try await Self.versions(connection, logger: logger))
        }
    }
}
