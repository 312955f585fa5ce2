import CatalogStore
import GRDB

extension SQLiteCatalogStore {
    public func productFacets(_ filter: ProductFilter, fields: [ProductFacetField], size: Int) async throws -> ProductFacets {
        try await database.read { db in
            let counts = try fields.map { field in
                let query = Self.facetQuery(field, of: filter, size: size)
                let values = try Row.fetchAll(db, sql: query.sql, arguments: StatementArguments(query.arguments)).map { row in
                    FacetValue(value: row["value"], count: row["count"])
                }
                return (field, values)
            }
            return ProductFacets(counts: counts, versions: try StoreVersions.fetch(db))
        }
    }

    /// The statement that counts one facet's values, largest counts first: the categories of the whole listing from
    /// their derived counts, any other from the selected rows (`FacetPlanTests` asks SQLite's plans).
    static func facetQuery(_ field: ProductFacetField, of filter: ProductFilter, size: Int) -> (sql: String, arguments: [DatabaseValue]) {
        if field == .category && filter.isEmpty {
            return ("SELECT name AS value, product_count AS count FROM categories ORDER BY product_count DESC, name LIMIT ?", [size.databaseValue])
        }
        let column = field.rawValue
        // Products without a brand hold ''; they are not a value of the facet.
        var selected = productListing.selecting(Conditions(products: filter), filter.searchQuery)
        selected.add("\(column) != ''")
        return (
            "SELECT \(column) AS value, COUNT(*) AS count FROM products \(selected.whereSQL) GROUP BY \(column) ORDER BY count DESC, value LIMIT ?",
            selected.values + [size.databaseValue]
        )
    }
}
