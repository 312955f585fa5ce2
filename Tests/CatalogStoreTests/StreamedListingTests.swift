import CatalogModel
import CatalogStore
import Testing

@Suite("Streamed listings (SQLite)")
struct StreamedListingTests {
    /// The store with one product written through the API, a products claim and a running report. Its writer waits
    /// `wait` for a streamed listing's next batch: long enough by default for a test's reads in between, however busy
    /// the machine running the suites is.
    private func importing(wait: Duration = .seconds(60), empty: Bool = false) async throws -> (TemporaryStore, any StoreClaim, ImportReport) {
        let temporary = try TemporaryStore(streamedListingWait: wait)
        if !empty { _ = try await temporary.store.upsertProducts([try product("API-1")], author: "api") }
        guard case .claimed(let claim) = try await temporary.store.claimImport(of: .products) else {
            throw ForeignImportPart("import claim", store: "a store whose products claim was refused")
        }
        let report = try await temporary.store.beginImport(source: .products)
        return (temporary, claim, report)
    }

    private func keys(_ store: some CatalogStore) async throws -> [String] {
        try await store.products(ProductFilter(), page: PageRequest()).rows.map(\.product.serialCode)
    }

    @Test func readersSeeThePreviousCatalogueUntilAStreamedListingCommits() async throws {
        let (temporary, claim, report) = try await importing()
        defer { temporary.remove() }
        let store = temporary.store
        let versionsBefore = try await store.versions()
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A")), (1, try product("B"))])
        _ = try await streamed.stage([(2, try product("C"))])
        let during = try await keys(store)
        #expect(during == ["API-1"])
        let versionsDuring = try await store.versions()
        #expect(versionsDuring == versionsBefore)
        let finished = try await store.completeImport(
            report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        await streamed.discard()
        #expect([finished.inserted, finished.updated, finished.unchanged, finished.deleted] == [Int]([3, 0, 0, 0]))
        let after = try await keys(store)
        #expect(after == ["A", "API-1", "B", "C"])
        let problems = try await store.check()
        #expect(problems.isEmpty)
        await claim.release()
    }

    @Test func aDiscardedStreamedListingLeavesTheStoreAsItWasAndFreesTheWriter() async throws {
        let (temporary, claim, _) = try await importing()
        defer { temporary.remove() }
        let store = temporary.store
        let versionsBefore = try await store.versions()
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A"))])
        await streamed.discard()
        let versionsAfter = try await store.versions()
        #expect(versionsAfter == versionsBefore)
        #expect(try await keys(store) == ["API-1"])
        // The writer is free again: a write through the API lands.
        let counts = try await store.upsertProducts([try product("API-2")], author: "api")
        #expect(counts == WriteCounts(inserted: 1))
        await claim.release()
    }

    /// Into an empty table, the key's index refuses the second one; else the writer's set of the listing's keys.
    @Test(arguments: [false, true]) func aKeyGivenTwiceFailsTheStreamedListingAndWritesNothing(intoAnEmptyTable: Bool) async throws {
        let (temporary, claim, report) = try await importing(empty: intoAnEmptyTable)
        defer { temporary.remove() }
        let store = temporary.store
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        await #expect(throws: StreamedListingAbandoned.self) {
            _ = try await streamed.stage([(0, try product("A")), (1, try product("B"))])
            _ = try await streamed.stage([(2, try product("A", name: "again"))])
            _ = try await store.completeImport(report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        }
        await streamed.discard()
        #expect(try await keys(store) == (intoAnEmptyTable ? [] : ["API-1"]))
        #expect(try await store.check().isEmpty)
        await claim.release()
    }

    @Test func aStreamedListingLeftWaitingTooLongRollsBackAndFreesTheWriter() async throws {
        let (temporary, claim, report) = try await importing(wait: .milliseconds(200))
        defer { temporary.remove() }
        let store = temporary.store
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage([(0, try product("A"))])
        // Long enough for the writer to give up: it waits at most 200 ms for a batch.
        try await Task.sleep(for: .seconds(1))
        let counts = try await store.upsertProducts([try product("API-2")], author: "api")
        #expect(counts == WriteCounts(inserted: 1))
        await #expect(throws: StreamedListingAbandoned.self) {
            _ = try await streamed.stage([(1, try product("B"))])
            _ = try await store.completeImport(report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        }
        await streamed.discard()
        #expect(try await keys(store) == ["API-1", "API-2"])
        await claim.release()
    }

    @Test func filmsAreNeverStreamed() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let streamed = try await temporary.store.makeStreamedListing(of: .films)
        #expect(streamed == nil)
    }
}
