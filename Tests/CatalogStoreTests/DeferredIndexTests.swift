import CatalogModel
import CatalogStore
import GRDB
import Testing

@testable import SQLiteStore

@Suite("A first import builds the product and history indexes, the search index and the category counts at its end (SQLite)")
struct DeferredIndexTests {
    /// The declared indexes and triggers of `products` and `changes`, as the schema holds them.
    private func indexes(_ temporary: TemporaryStore) throws -> [String] {
        try temporary.rawQueue().read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT sql FROM sqlite_schema WHERE type IN ('index', 'trigger') AND tbl_name IN ('products', 'changes') AND sql IS NOT NULL
                    ORDER BY name
                    """)
        }
    }

    private func categoryCounts(_ temporary: TemporaryStore) throws -> [String] {
        try temporary.rawQueue().read { db in
            try String.fetchAll(db, sql: "SELECT name || ' ' || product_count || ' ' || in_stock_count FROM categories ORDER BY name")
        }
    }

    private func schemaVersion(_ temporary: TemporaryStore) throws -> Int32 {
        try temporary.rawQueue().read { db in try db.schemaVersion() }
    }

    /// A claim, a running report and a streamed listing on the empty store, given `batches` of products.
    private func firstImport(_ temporary: TemporaryStore, batches: [[String]]) async throws -> (any StoreClaim, ImportReport, any ImportStaging) {
        var index = 0
        let products = try batches.map { batch in
            try batch.map { key in
                defer { index += 1 }
                return try product(key, category: "c\(index % 3)", price: "\(index + 1).00", stock: index % 2)
            }
        }
        return try await temporary.stageFirstImport(products)
    }

    @Test func aFirstImportLeavesTheIndexesAsDeclaredAndUsed() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        // A partial index someone added is kept up to date as the rows go in, not dropped.
        try await temporary.rawQueue().write { db in try db.execute(sql: "CREATE INDEX products_in_stock ON products(stock) WHERE stock > 0") }
        let declared = try indexes(temporary)
        // Seven plain indexes (one the partial one), three triggers of the search index, four of the category counts, the history's index.
        #expect(declared.count == 15)
        let schemaBefore = try schemaVersion(temporary)
        let (claim, report, streamed) = try await firstImport(temporary, batches: [["A", "B", "C"], ["D", "E"]])
        // The writer has dropped them by now, in its transaction: a reader still has them.
        #expect(try indexes(temporary) == declared)
        let finished = try await temporary.store.completeImport(
            report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        await streamed.discard()
        #expect(finished.inserted == 5)
        #expect(try indexes(temporary) == declared)
        // The six plain indexes of products, the history's and the seven triggers were dropped and made again, each a
        // schema change, and nothing else was; the search index and the counts were derived from the rows.
        #expect(try schemaVersion(temporary) == schemaBefore + 28)
        #expect(try categoryCounts(temporary) == ["c0 2 1", "c1 2 1", "c2 1 0"])
        let history = try await temporary.store.changes(of: .product, key: "D", limit: 10).map(\.key)
        #expect(history == ["D"])
        // The search index writes its words in runs of 64 MB (the schema's setting), the first import's included.
        let hashSize = try await temporary.rawQueue().read { db in
            try Int.fetchOne(db, sql: "SELECT v FROM product_search_config WHERE k = 'hashsize'")
        }
        #expect(hashSize == 67_108_864)
        // The writer's own settings are back once the indexes are built on helper threads.
        let writerSettings = try await temporary.store.write { db in
            try ["temp_store", "threads", "cache_size"].map { try Int.fetchOne(db, sql: "PRAGMA \($0)") }
        }
        #expect(writerSettings == [2, 0, -65536])
        let found = try await temporary.store.products(ProductFilter(search: "name"), page: PageRequest(pageSize: 10)).rows
        #expect(found.map(\.product.serialCode) == ["A", "B", "C", "D", "E"])
        #expect(try await temporary.store.check().isEmpty)
        let plan = try await temporary.rawQueue().read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT serial_code FROM products WHERE category = 'c1' ORDER BY serial_code")
                .map { row -> String in row["detail"] }.joined(separator: "\n")
        }
        #expect(plan.contains("products_by_category"))
        let inCategory = try await temporary.store.products(ProductFilter(category: "c1"), page: PageRequest()).rows.map(\.product.serialCode)
        #expect(inCategory == ["B", "E"])
        let problems = try await temporary.store.check()
        #expect(problems.isEmpty)
        await claim.release()
    }

    @Test func aDiscardedFirstImportLeavesTheIndexes() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let declared = try indexes(temporary)
        let schemaBefore = try schemaVersion(temporary)
        let (claim, _, streamed) = try await firstImport(temporary, batches: [["A", "B"]])
        await streamed.discard()
        #expect(try indexes(temporary) == declared)
        #expect(try schemaVersion(temporary) == schemaBefore)
        let counts = try await temporary.store.upsertProducts([try product("API-1", category: "c1")], author: "api")
        #expect(counts == WriteCounts(inserted: 1))
        let problems = try await temporary.store.check()
        #expect(problems.isEmpty)
        await claim.release()
    }
}
