import CatalogModel
import CatalogStore
import CatalogTestSupport
import GRDB
import Testing

@Suite("Store writes")
struct StoreWriteTests {
    @Test(arguments: StoreBackend.available) func upsertCountsAreExactAndAnUnchangedRowIsNotWritten(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        let first = try await store.upsertProducts([try product("A"), try product("B")], author: "api")
        #expect(first == WriteCounts(inserted: 2))
        let versionsBefore = try await store.versions()
        let rowBefore = try await store.product(serialCode: "A").0
        let same = try await store.upsertProducts([try product("A"), try product("B", price: "2.00")], author: "api")
        #expect(same == WriteCounts(updated: 1, unchanged: 1))
        let rowAfter = try await store.product(serialCode: "A").0
        #expect(rowAfter?.changedSeq == rowBefore?.changedSeq)
        let versionsAfter = try await store.versions()
        #expect(versionsAfter.lastSeq == versionsBefore.lastSeq + 1)
        let unchanged = try await store.upsertProducts([try product("A"), try product("B", price: "2.00")], author: "api")
        #expect(unchanged == WriteCounts(unchanged: 2))
        let finalVersions = try await store.versions()
        #expect(finalVersions == versionsAfter)
    }

    @Test(arguments: StoreBackend.available) func aProductReadsBackAsItWasWrittenWithAndWithoutItsOptionalValues(_ backend: StoreBackend) async throws
    {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        let bare = Product(serialCode: "BARE", name: "n", category: "c", price: try Price(parsing: "1"))
        let full = Product(
            serialCode: "FULL", name: "n", description: "d", category: "c", brand: "b", price: try Price(parsing: "2.50"), stock: 3,
            updatedAt: "2024-01-01T00:00:00Z", sourceURL: "http://127.0.0.1:9/products/1")
        _ = try await store.upsertProducts([bare, full], author: "api")
        #expect(try await store.product(serialCode: "BARE").0?.product == bare)
        #expect(try await store.product(serialCode: "FULL").0?.product == full)
        #expect(bare.brand == nil && bare.updatedAt == nil && bare.sourceURL == nil)
        // Written again as it was read, nothing changes.
        #expect(try await store.upsertProducts([bare, full], author: "api") == WriteCounts(unchanged: 2))
    }

    @Test func theQuickVersionCheckFollowsEveryCommitFromAnyConnection() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        #expect(try store.currentVersions() == (try await store.versions()))
        _ = try await store.upsertProducts([try product("A")], author: "api")
        let afterWrite = try store.currentVersions()
        #expect(afterWrite.products > 0)
        #expect(afterWrite == (try await store.versions()))
        // Asked again with nothing committed: the same answer, from the cache.
        #expect(try store.currentVersions() == afterWrite)
        // Another connection, as another process would: the next check sees it at once.
        try await temporary.rawQueue().write { db in
            try db.execute(sql: "UPDATE versions SET version = version + 5 WHERE name = 'films'")
        }
        let afterOther = try store.currentVersions()
        #expect(afterOther.films == afterWrite.films + 5)
        #expect(afterOther == (try await store.versions()))
    }

    @Test func pruningRemovesExactlyTheChangesBeforeTheCutoffAndKeepsTheNewest() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        for key in ["A", "B", "C", "D"] { _ = try await store.upsertProducts([try product(key)], author: "api") }
        try await temporary.rawQueue().write { db in
            try db.execute(sql: "UPDATE changes SET at = '2020-01-01T00:00:00Z' WHERE key IN ('A', 'B')")
            try db.execute(sql: "UPDATE changes SET at = '2024-01-01T00:00:00Z' WHERE key IN ('C', 'D')")
        }
        #expect(try await store.pruneHistory(before: "2023-01-01T00:00:00Z") == 2)
        #expect(try await store.changes(since: 2, limit: 10).changes.map(\.key) == ["C", "D"])
        #expect(try await store.pruneHistory(before: "2023-01-01T00:00:00Z") == 0)
        // Everything is old: all but the newest change go, so the sequence never restarts.
        #expect(try await store.pruneHistory(before: "2030-01-01T00:00:00Z") == 1)
        #expect(try await store.changes(since: 3, limit: 10).changes.map(\.key) == ["D"])
    }

    @Test(arguments: StoreBackend.available) func aPriceIsReadBackExactlyAsWritten(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts(
            [try product("A", price: "19.90"), try product("B", price: "19.99"), try product("C", price: "20")], author: "api")
        let price = try await store.product(serialCode: "A").0?.product.price.text
        #expect(price == "19.90")
        let page = try await store.products(
            ProductFilter(minimumPrice: try Price(parsing: "19.9"), maximumPrice: try Price(parsing: "19.99")), page: PageRequest())
        #expect(page.rows.map(\.product.serialCode) == ["A", "B"])
        #expect(page.count == 2)
    }

    /// An empty table is written without comparing (every row is new), except a key this write already wrote.
    @Test func aKeyRepeatedInALaterBatchOfAWriteIntoAnEmptyStoreIsComparedWithWhatThatWriteStored() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        var products = try (0..<150).map { try product(String(format: "P%03d", $0), category: "c\($0 % 3)") }
        products[120] = try product("P005", category: "c9", name: "written twice")
        let counts = try await store.upsertProducts(products, author: "api")
        #expect(counts == WriteCounts(inserted: 149, updated: 1))
        let repeated = try await store.product(serialCode: "P005").0?.product
        #expect(repeated?.name == "written twice" && repeated?.category == "c9")
        let lastSeq = try await store.versions().lastSeq
        #expect(lastSeq == 150)
        let problems = try await store.check()
        #expect(problems.isEmpty)
        let categories = try await store.categories(CategoryFilter(), page: PageRequest()).rows.map { "\($0.name) \($0.productCount)" }
        #expect(categories == ["c0 49", "c1 50", "c2 49", "c9 1"])
    }

    @Test func anImportMirrorsItsListingButNeverDeletesAPIRows() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts([try product("API-1")], author: "api")
        guard case .claimed(let claim) = try await store.claimImport(of: .products) else {
            Issue.record("the products claim was refused")
            return
        }
        defer { Task { await claim.release() } }
        var report = try await store.beginImport(source: .products)
        report = try await store.completeImport(
            report, listing: CompletedListing(records: .products([try product("A"), try product("B"), try product("C")]), pages: []), under: claim)
        #expect([report.inserted, report.updated, report.unchanged, report.deleted] == [Int]([3, 0, 0, 0]))
        _ = try await store.upsertProducts([try product("B", name: "changed by the API")], author: "api")
        var second = try await store.beginImport(source: .products)
        second = try await store.completeImport(
            second, listing: CompletedListing(records: .products([try product("B"), try product("C")]), pages: []), under: claim)
        #expect([second.inserted, second.updated, second.unchanged, second.deleted] == [Int]([0, 1, 1, 1]))
        let keys = try await store.products(ProductFilter(), page: PageRequest()).rows.map(\.product.serialCode)
        #expect(keys == ["API-1", "B", "C"])
        let name = try await store.product(serialCode: "B").0?.product.name
        #expect(name == "name B")
        let history = try await temporary.rawQueue().read { db in
            try String.fetchAll(db, sql: "SELECT key || ' ' || op || ' ' || author FROM changes ORDER BY seq")
        }
        #expect(
            history == [
                "API-1 upsert api", "A upsert import:products", "B upsert import:products", "C upsert import:products", "B upsert api",
                "B upsert import:products", "A delete import:products",
            ])
        let reports = try await store.importReports(page: PageRequest()).rows.map(\.id)
        #expect(reports == [second.id, report.id])
    }

    @Test(arguments: StoreBackend.available) func aFailedImportLeavesTheCatalogueAsItWas(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts([try product("A")], author: "api")
        let before = try await store.versions()
        var report = try await store.beginImport(source: .products)
        report.error = "page 2 (http://upstream/products): HTTP 500"
        try await store.failImport(report)
        let (stored, after) = try await store.importReport(id: report.id)
        #expect(stored?.status == .failed)
        #expect(stored?.error == "page 2 (http://upstream/products): HTTP 500")
        #expect(after.products == before.products)
        #expect(after.lastSeq == before.lastSeq)
    }

    @Test(arguments: StoreBackend.available) func readersSeeEitherNoneOrAllOfABigWrite(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        let products = try (0..<20_000).map { try product(String(format: "K%05d", $0), category: "c\($0 % 7)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await store.upsertProducts(products, author: "api") }
            group.addTask {
                for _ in 0..<500 {
                    let page = try await store.products(ProductFilter(), page: PageRequest(pageSize: 5))
                    let categories = try await store.categories(CategoryFilter(), page: PageRequest(pageSize: 100))
                    #expect(page.count == 0 || page.count == 20_000)
                    let total = categories.rows.reduce(0) { $0 + $1.productCount }
                    #expect(total == 0 || total == 20_000)
                    if page.count == 20_000 { break }
                }
            }
            try await group.waitForAll()
        }
    }
}
