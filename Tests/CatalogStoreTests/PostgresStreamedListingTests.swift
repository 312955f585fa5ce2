import CatalogModel
import CatalogStore
import CatalogTestSupport
import PostgresNIO
import Testing

@testable import PostgresStore

@Suite("Streamed listings (PostgreSQL)")
struct PostgresStreamedListingTests {
    /// An empty store on PostgreSQL whose streamed listings wait `wait` for their next batch, a products claim and a
    /// running report; nil when no server is configured.
    private func importing(wait: Duration = .seconds(60)) async throws -> (TestStore, PostgresCatalogStore, any StoreClaim, ImportReport)? {
        guard StoreBackend.available.contains(.postgres) else { return nil }
        let temporary = try await TestStore.open(.postgres)
        guard var store = temporary.store as? PostgresCatalogStore else {
            temporary.remove()
            return nil
        }
        store.streamedListingWait = wait
        guard case .claimed(let claim) = try await store.claimImport(of: .products) else {
            temporary.remove()
            throw ForeignImportPart("import claim", store: "a store whose products claim was refused")
        }
        return (temporary, store, claim, try await store.beginImport(source: .products))
    }

    private func keys(_ store: some CatalogStore, search: String? = nil) async throws -> [String] {
        try await store.products(ProductFilter(search: search), page: PageRequest()).rows.map(\.product.serialCode)
    }

    @Test func readersSeeTheEmptyCatalogueUntilAStreamedListingCommits() async throws {
        guard let (temporary, store, claim, report) = try await importing() else { return }
        defer { temporary.remove() }
        // A product written and deleted leaves the table empty and two changes in the history, which the listing's
        // copy of the history keeps.
        _ = try await store.upsertProducts([try product("Z")], author: "api")
        #expect(try await store.deleteProduct(serialCode: "Z", author: "api"))
        let versionsBefore = try await store.versions()
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A")), (1, try product("B", category: "d"))])
        _ = try await streamed.stage([(2, try product("C"))])
        #expect(try await keys(store) == [])
        #expect(try await store.versions() == versionsBefore)
        let finished = try await store.completeImport(
            report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        await streamed.discard()
        #expect([finished.inserted, finished.updated, finished.unchanged, finished.deleted] == [Int]([3, 0, 0, 0]))
        #expect(try await keys(store) == ["A", "B", "C"])
        // The words of a listing that filled an empty table are there too, written at its end.
        #expect(try await keys(store, search: "d ") == ["B"])
        // So are the categories' counts, added once for all rows with their trigger off meanwhile.
        #expect(try await store.category(name: "c").0?.productCount == 2)
        #expect(try await store.category(name: "d").0?.productCount == 1)
        let changes = try await store.changes(since: 0, limit: 10)
        #expect(changes.changes.map(\.key) == ["Z", "Z", "A", "B", "C"])
        #expect(try await store.versions().lastSeq == versionsBefore.lastSeq + 3)
        #expect(try await store.check().isEmpty)
        await claim.release()
        // The listing wrote its words in one statement at its end, with the insert trigger off until then: a product
        // written afterwards has its words written again by the trigger.
        _ = try await store.upsertProducts([try product("D", name: "zebra crossing")], author: "api")
        #expect(try await keys(store, search: "zebra ") == ["D"])
        #expect(try await store.category(name: "c").0?.productCount == 3)
        #expect(try await store.check().isEmpty)
    }

    /// Pruning the history waits for a listing filling a copy of the history, which holds the history lock: run
    /// beside it, it would prune the history the copy replaces, and what it pruned would come back at the commit.
    @Test func pruningTheHistoryWaitsForAStreamedListing() async throws {
        guard let (temporary, store, claim, report) = try await importing() else { return }
        defer { temporary.remove() }
        _ = try await store.upsertProducts([try product("Z")], author: "api")
        #expect(try await store.deleteProduct(serialCode: "Z", author: "api"))
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A"))])
        // Every change but the newest is older than the cutoff.
        let pruning = Task { try await store.pruneHistory(before: "9999-12-31T00:00:00Z") }
        try await Task.sleep(for: .milliseconds(300))
        _ = try await store.completeImport(report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        await streamed.discard()
        await claim.release()
        #expect(try await pruning.value == 2)
        #expect(try await store.changes(since: 2, limit: 10).changes.map(\.key) == ["A"])
    }

    /// The listing fills copies of `products`, `product_word_runs` and `changes` that take their places (`PostgresTableRebuild`): what
    /// takes their places has every column, constraint, index, trigger and sequence of a fresh store's, named as they are.
    @Test func aStreamedListingLeavesTheSchemaOfAFreshStore() async throws {
        guard let (temporary, store, claim, report) = try await importing() else { return }
        defer { temporary.remove() }
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A", name: "zebra crossing")), (1, try product("B"))])
        _ = try await store.completeImport(report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        await streamed.discard()
        await claim.release()
        let location = try #require(temporary.postgresLocation)
        let connection = try await TestStore.connect(location, logger: SchemaSnapshotTests.logger)
        let schema: String
        do {
            schema = try await SchemaSnapshotTests.postgresSchema(connection)
        } catch {
            try await connection.close()
            throw error
        }
        try await connection.close()
        try SchemaSnapshotTests.compare(schema, withSnapshotOf: .postgres, after: "a streamed listing")
        // The sequence that numbers the rows stayed with them: the next product is numbered after the listing's.
        _ = try await store.upsertProducts([try product("C", name: "zebra")], author: "api")
        #expect(try await keys(store, search: "zebra") == ["A", "C"])
        #expect(try await store.check().isEmpty)
    }

    /// A table an operator gave more than a copy would have, here a view that depends on it, is filled in place: the
    /// views on the products and on their words stay, and the words and their counts are written as into a copy.
    @Test func aTableWithAViewOnItIsFilledInPlace() async throws {
        guard let (temporary, store, claim, report) = try await importing() else { return }
        defer { temporary.remove() }
        try await temporary.executeRaw("CREATE VIEW product_names AS SELECT serial_code, name FROM products", [])
        try await temporary.executeRaw("CREATE VIEW words_held AS SELECT DISTINCT word FROM product_word_runs", [])
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A", name: "zebra crossing")), (1, try product("B"))])
        let finished = try await store.completeImport(
            report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        await streamed.discard()
        await claim.release()
        #expect(finished.inserted == 2)
        #expect(try await keys(store, search: "zebra ") == ["A"])
        #expect(try await store.check().isEmpty)
        // The view is still there, on the table that holds the rows: the statement fails otherwise.
        try await temporary.executeRaw(
            "DO $$ BEGIN IF (SELECT COUNT(*) FROM product_names) <> 2 THEN RAISE EXCEPTION 'the view lost its rows'; END IF; END $$", [])
        _ = try await store.upsertProducts([try product("C", name: "zebra")], author: "api")
        #expect(try await keys(store, search: "zebra ") == ["A", "C"])
        #expect(try await store.check().isEmpty)
    }

    /// A reader that holds the products table when the copies are to take its place is waited for, its lock asked for
    /// again and again for a short while each time (`PostgresTableRebuild.replace`), and the listing commits after it.
    @Test func aReaderHoldingTheTableIsWaitedForBeforeTheCopyTakesItsPlace() async throws {
        guard let (temporary, store, claim, report) = try await importing() else { return }
        defer { temporary.remove() }
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A", name: "zebra crossing"))])
        let location = try #require(temporary.postgresLocation)
        let reader = try await TestStore.connect(location, logger: SchemaSnapshotTests.logger)
        do {
            try await reader.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: SchemaSnapshotTests.logger)
            try await reader.query("SELECT COUNT(*) FROM products", logger: SchemaSnapshotTests.logger)
            let completing = Task {
                try await store.completeImport(report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
            }
            // Several of the replacement's lock waits pass while the reader holds the table.
            try await Task.sleep(for: .milliseconds(600))
            try await reader.query("COMMIT", logger: SchemaSnapshotTests.logger)
            #expect(try await completing.value.inserted == 1)
        } catch {
            try? await reader.close()
            throw error
        }
        try await reader.close()
        await streamed.discard()
        await claim.release()
        #expect(try await keys(store, search: "zebra ") == ["A"])
        #expect(try await store.check().isEmpty)
    }

    @Test func aDiscardedStreamedListingLeavesTheStoreEmptyAndFreesTheHistoryLock() async throws {
        guard let (temporary, store, claim, _) = try await importing() else { return }
        defer { temporary.remove() }
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A"))])
        await streamed.discard()
        #expect(try await keys(store) == [])
        #expect(try await store.upsertProducts([try product("API-1", name: "zebra")], author: "api") == WriteCounts(inserted: 1))
        // The insert trigger the listing turned off is on again, rolled back with it.
        #expect(try await keys(store, search: "zebra ") == ["API-1"])
        #expect(try await store.check().isEmpty)
        await claim.release()
    }

    /// A key given again after `batchesBefore` batches fails the run when the copy's key is built, after the rows:
    /// nothing is written. Each batch before is as large as one statement, so that none is merged with the next.
    @Test(arguments: [1, 2])
    func aKeyGivenTwiceFailsTheStreamedListingAndWritesNothing(batchesBefore: Int) async throws {
        guard let (temporary, store, claim, report) = try await importing() else { return }
        defer { temporary.remove() }
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        let size = PostgresStreamedListing.largestStatement
        await #expect(throws: StreamedListingAbandoned.self) {
            for batch in 0..<batchesBefore {
                _ = try await streamed.stage(try (batch * size..<(batch + 1) * size).map { ($0, try product("K\($0)")) })
            }
            _ = try await streamed.stage([(batchesBefore * size, try product("K0", name: "again"))])
            for index in 1...2 { _ = try await streamed.stage([(batchesBefore * size + index, try product("C\(index)"))]) }
            _ = try await store.completeImport(report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        }
        await streamed.discard()
        #expect(try await keys(store) == [])
        #expect(try await store.check().isEmpty)
        await claim.release()
    }

    @Test func aStreamedListingLeftWaitingTooLongRollsBackAndFreesTheHistoryLock() async throws {
        guard let (temporary, store, claim, report) = try await importing(wait: .milliseconds(200)) else { return }
        defer { temporary.remove() }
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A"))])
        // Long enough for the transaction to give up: it waits at most 200 ms for a batch.
        try await Task.sleep(for: .seconds(1))
        #expect(try await store.upsertProducts([try product("API-2")], author: "api") == WriteCounts(inserted: 1))
        await #expect(throws: StreamedListingAbandoned.self) {
            _ = try await streamed.stage([(1, try product("B"))])
            _ = try await store.completeImport(report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        }
        await streamed.discard()
        #expect(try await keys(store) == ["API-2"])
        await claim.release()
    }

    /// Into a table with rows, every listed row is compared with the stored one: the staged listing does that.
    @Test func onlyAnEmptyProductsTableIsFilledAsItIsRead() async throws {
        guard let (temporary, store, claim, _) = try await importing() else { return }
        defer { temporary.remove() }
        #expect(try await store.makeStreamedListing(of: .films) == nil)
        _ = try await store.upsertProducts([try product("API-1")], author: "api")
        #expect(try await store.makeStreamedListing(of: .products) == nil)
        await claim.release()
    }
}
