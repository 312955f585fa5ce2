import CatalogModel
import CatalogStore
import GRDB
import Testing

@testable import SQLiteStore

@Suite("Facets are counted from an index or the derived counts, never by reading the table (SQLite)")
struct FacetPlanTests {
    /// SQLite's plan for the statement the store runs for each facet of the whole listing and of a brand's products.
    @Test func theFacetsOfTheWholeListingAndOfABrandReadNoTable() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let cases: [(ProductFacetField, ProductFilter, expected: String)] = [
            (.category, ProductFilter(), "categories"), (.brand, ProductFilter(), "COVERING INDEX products_by_brand"),
            (.category, ProductFilter(brand: "Acme"), "INDEX products_by_brand"), (.brand, ProductFilter(brand: "Acme"), "INDEX products_by_brand"),
            (.brand, ProductFilter(category: "lamp"), "INDEX products_by_category"),
        ]
        let plans = try await temporary.rawQueue().read { db in
            try cases.map { field, filter, _ in
                let query = SQLiteCatalogStore.facetQuery(field, of: filter, size: 10)
                return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query.sql, arguments: StatementArguments(query.arguments))
                    .map { $0["detail"] as String }.joined(separator: "; ")
            }
        }
        for ((field, filter, expected), plan) in zip(cases, plans) {
            #expect(plan.contains(expected), "\(field) of \(filter): \(plan)")
            #expect(!plan.contains("SCAN products") || plan.contains("INDEX"), "\(field) of \(filter): \(plan)")
        }
    }
}
