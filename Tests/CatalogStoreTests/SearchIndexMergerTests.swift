import CatalogModel
import CatalogStore
import GRDB
import Testing

@testable import SQLiteStore

@Suite("The products' search index is merged beside the writes, never whole inside one (SQLite)")
struct SearchIndexMergerTests {
    /// The pages of each segment of the products' FTS5 index, by segment id: a page's row id in `product_search_data`
    /// holds its segment's id above bit 37 (the structure and averages rows have id 0).
    private func segments(_ temporary: TemporaryStore) throws -> [Int64: Int] {
        try temporary.rawQueue().read { db in
            var pages: [Int64: Int] = [:]
            let sql = "SELECT id >> 37 AS segment, COUNT(*) AS pages FROM product_search_data WHERE id >> 37 > 0 GROUP BY 1"
            for row in try Row.fetchAll(db, sql: sql) {
                pages[row["segment"]] = row["pages"]
            }
            return pages
        }
    }

    @Test func aFirstImportsSearchIndexIsOneSegmentThatTheWritesMergesAfterItLeaveAsItIs() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        // Words written out in runs of 64 KB rather than 64 MB: the import's index comes in several segments, as a
        // million products' does.
        try await store.write { db in try db.execute(sql: "INSERT INTO product_search (product_search, rank) VALUES ('hashsize', 65536)") }
        let batches = try (0..<6).map { batch in
            try (0..<500).map { offset in
                let number = batch * 500 + offset
                return try product(String(format: "P%05d", number), name: "lamp w\(number) shade\(number % 97) x\(number * 7919 % 10007)")
            }
        }
        let (claim, report, staging) = try await temporary.stageFirstImport(batches)
        _ = try await store.completeImport(report, listing: CompletedListing(records: .stagedProducts(staging), pages: []), under: claim)
        await staging.discard()
        await claim.release()
        let imported = try segments(temporary)
        #expect(imported.count == 1)
        let (largest, pages) = try #require(imported.max { $0.value < $1.value })

        // Forty single-product writes, the segments merged after each as a served store's are. With the import's
        // segments left on the first level as FTS5 wrote them, the first write's merge rewrote them all. (The level of
        // 16 segments, migration v14, shows only at scale: the schema snapshot holds it.)
        let merger = SearchIndexMerger(store: store)
        for index in 0..<40 {
            _ = try await store.upsertProducts([try product(String(format: "P%05d", index), name: "desk \(index) written")], author: "api")
            var steps = 0
            while try await merger.step(), steps < 1_000 { steps += 1 }
        }
        let written = try segments(temporary)
        #expect(written[largest] == pages)
        // The writes' segments were merged among themselves: fewer than a level of 16 beside the import's.
        #expect(written.count < 17)
        #expect(written.count > 1)
        let desks = try await store.products(ProductFilter(search: "written"), page: PageRequest(pageSize: 5))
        #expect(desks.count == 40)
        let lamps = try await store.products(ProductFilter(search: "lamp"), page: PageRequest(pageSize: 5))
        #expect(lamps.count == 2_960)
    }

    @Test func singleWritesLeaveAnImportsSegmentAsItIsAndTheMergerMergesTheirs() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let listing = try (0..<3_000).map { try product(String(format: "P%05d", $0), name: "lamp \($0) shade\($0 % 97)") }
        _ = try await store.upsertProducts(listing, author: "import")
        // One segment on the first level, as a first import leaves the index (`DeferredIndexes` builds it whole).
        try await temporary.rawQueue().write { db in try db.execute(sql: "INSERT INTO product_search (product_search) VALUES ('rebuild')") }
        let imported = try segments(temporary)
        #expect(imported.count == 1)
        let (largest, pages) = try #require(imported.max { $0.value < $1.value })
        // Twenty writes of one product each: FTS5's own merging rewrote the imported segment at the sixteenth.
        for index in 0..<20 {
            _ = try await store.upsertProducts([try product(String(format: "P%05d", index), name: "desk \(index) written")], author: "api")
        }
        let written = try segments(temporary)
        #expect(written[largest] == pages)
        #expect(written.count > imported.count)

        let merger = SearchIndexMerger(store: store)
        var steps = 0
        while try await merger.step(), steps < 1_000 { steps += 1 }
        #expect(steps > 0)
        let merged = try segments(temporary)
        #expect(merged.count < written.count)
        #expect(try await merger.step() == false)

        // The merged index answers as the rows stand.
        let desks = try await store.products(ProductFilter(search: "written"), page: PageRequest(pageSize: 5))
        #expect(desks.count == 20)
        let lamps = try await store.products(ProductFilter(search: "lamp"), page: PageRequest(pageSize: 5))
        #expect(lamps.count == 2_980)
    }
}
