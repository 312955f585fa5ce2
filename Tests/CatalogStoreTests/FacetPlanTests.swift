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

extension FacetPlanTests {
    /// A search with many matches has its facets counted by walking each facet's index whole and testing each
    /// entry's row against the matches: the counts, their order and the price range agree with SQLite's GROUP BY.
    @Test func facetsOfManyMatchesAgreeWithTheGroupedCount() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        var random = SplitMix64(seed: 25)
        let products = try (0..<300).map { index in
            Product(
                serialCode: "F\(index)",
                name: (0..<3).map { _ in SearchReference.vocabulary.randomElement(using: &random) ?? "" }.joined(separator: " "),
                category: ["lamp", "Bureau", "café", "cafe", "b"].randomElement(using: &random) ?? "",
                brand: ["Acme", "Zeta", "Ω", "acme", nil].randomElement(using: &random) ?? nil,
                price: try Price(parsing: "\(Int.random(in: 1...9, using: &random))"))
        }
        _ = try await temporary.store.upsertProducts(products, author: "api")
        let filters = ["lamp", "desk ", "cafe", "zz", "\"desk lamp\"", "a"].flatMap { search in
            [
                ProductFilter(search: search), ProductFilter(minimumPrice: try? Price(parsing: "3"), search: search),
                ProductFilter(minimumPrice: try? Price(parsing: "2"), maximumPrice: try? Price(parsing: "5"), search: search),
            ]
        }
        let walked = try await temporary.rawQueue().read { db in
            var walked = 0
            for filter in filters {
                let matches = try SQLiteCatalogStore.manyMatches(of: filter, from: 0, db)
                for field in ProductFacetField.allCases {
                    let query = SQLiteCatalogStore.facetQuery(field, of: filter, size: 3)
                    let grouped = try Row.fetchAll(db, sql: query.sql, arguments: StatementArguments(query.arguments)).map {
                        FacetValue(value: $0["value"], count: $0["count"])
                    }
                    guard let matches else {
                        #expect(grouped.isEmpty, "\(field) of \(filter)")
                        continue
                    }
                    walked += 1
                    let counted = try SQLiteCatalogStore.facetValues(field, among: matches, of: filter, size: 3, db)
                    #expect(counted == grouped, "\(field) of \(filter)")
                }
            }
            return walked
        }
        #expect(walked >= 20)
        #expect(try await temporary.rawQueue().read { try SQLiteCatalogStore.manyMatches(of: ProductFilter(search: "lamp"), from: 300, $0) } == nil)
    }
}
