import CatalogModel
import CatalogStore
import GRDB
import Testing

@testable import SQLiteStore

@Suite("Pages an index answers are read on the calling thread (SQLite)")
struct DirectReadTests {
    @Test func aPageSeesACommitMadeByAnotherConnectionAtOnce() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        _ = try await temporary.store.upsertProducts([try product("A"), try product("B")], author: "api")
        #expect(try await temporary.store.products(ProductFilter(), page: PageRequest()).count == 2)
        try await temporary.rawQueue().write { db in
            try db.execute(sql: "UPDATE products SET name = 'renamed' WHERE serial_code = 'A'")
            try db.execute(sql: "UPDATE versions SET version = version + 1 WHERE name = 'products'")
        }
        let page = try await temporary.store.products(ProductFilter(), page: PageRequest())
        #expect(page.rows.map(\.product.name) == ["renamed", "name B"])
        #expect(try await temporary.store.product(serialCode: "A").0?.product.name == "renamed")
        #expect(page.versions == (try await temporary.store.versions()))
    }

    /// More reads at once than readers kept idle: each opens its own, and every one sees the same state.
    @Test func manyReadsAtOnceAllAnswer() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let products = try (0..<50).map { try product(String(format: "P%02d", $0), category: "c\($0 % 2)") }
        _ = try await temporary.store.upsertProducts(products, author: "api")
        let store = temporary.store
        let counts = try await withThrowingTaskGroup(of: [Int].self) { group in
            for index in 0..<32 {
                group.addTask {
                    let all = try await store.products(ProductFilter(), page: PageRequest(pageSize: 5 + index))
                    let category = try await store.products(ProductFilter(category: "c1"), page: PageRequest(pageSize: 5))
                    return [all.count, all.rows.count, category.count]
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.count == 32)
        #expect(Set(counts.map { [$0[0], $0[2]] }) == [[50, 25]])
        #expect(Set(counts.map { $0[1] }) == Set(5..<37))
    }

    @Test func aClosedStoreRefusesAPageRatherThanReadingAClosedFile() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        _ = try await temporary.store.upsertProducts([try product("A")], author: "api")
        _ = try await temporary.store.products(ProductFilter(), page: PageRequest())
        try temporary.store.close()
        await #expect(throws: DatabaseError.self) { try await temporary.store.products(ProductFilter(), page: PageRequest()) }
        await #expect(throws: DatabaseError.self) { try await temporary.store.product(serialCode: "A") }
    }

    /// A page read on the calling thread must never sort the table: SQLite's plan for each such query uses an index
    /// for its order.
    @Test func everyPageReadOnTheCallingThreadIsOrderedByAnIndex() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let listing = SQLiteCatalogStore.productListing
        var queries: [String] = []
        for field in SQLiteCatalogStore.indexOrderedFields {
            let sort = listing.sortExpression(field)
            for direction in ["ASC", "DESC"] {
                queries.append("SELECT * FROM products ORDER BY \(sort) \(direction), serial_code \(direction) LIMIT 101")
                queries.append(
                    "SELECT * FROM products WHERE (\(sort), serial_code) > ('a', 'b') ORDER BY \(sort) \(direction), serial_code \(direction) LIMIT 101"
                )
            }
        }
        queries.append("SELECT * FROM products WHERE category = 'c' ORDER BY serial_code DESC LIMIT 101")
        queries.append("SELECT * FROM products WHERE category = 'c' AND (serial_code, serial_code) > ('a', 'b') ORDER BY serial_code LIMIT 101")
        let asked = queries
        let plans = try await temporary.rawQueue().read { db in
            try asked.map { query in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query).map { $0["detail"] as String }.joined(separator: "; ") }
        }
        for (query, plan) in zip(queries, plans) {
            #expect(!plan.contains("TEMP B-TREE"), "\(query): \(plan)")
            #expect(plan.contains("INDEX"), "\(query): \(plan)")
        }
    }
}
