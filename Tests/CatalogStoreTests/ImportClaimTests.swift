import CatalogModel
import CatalogStore
import CatalogTestSupport
import Testing

@Suite("One import of a source at a time, across processes and replicas")
struct ImportClaimTests {
    /// Another process claims products, does `work` and stops without a word (its store, its connections, its lock
    /// file go); then this store claims them, allowed up to 5 s for the server to notice (it does at once). Nil when
    /// either claim is refused.
    static func claimAfterAProcessThatStops(
        _ temporary: TestStore, after work: (any CatalogStore) async throws -> Void
    ) async throws -> (any StoreClaim)? {
        let stopped = try await temporary.openAnother()
        guard case .claimed = try await stopped.claimImport(of: .products) else {
            try await stopped.close()
            return nil
        }
        try await work(stopped)
        try await stopped.close()
        for _ in 0..<50 {
            if case .claimed(let claim) = try await temporary.store.claimImport(of: .products) { return claim }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    @Test(arguments: StoreBackend.available)
    func aSecondProcessIsToldWhichRunHoldsTheSource(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let other = try await temporary.openAnother()
        defer { Task { try? await other.close() } }
        guard case .claimed(let claim) = try await temporary.store.claimImport(of: .products) else {
            Issue.record("the first claim was refused")
            return
        }
        let report = try await temporary.store.beginImport(source: .products)
        guard case .heldElsewhere(let running) = try await other.claimImport(of: .products) else {
            Issue.record("a second process claimed a source that is held")
            return
        }
        #expect(running == report.id)
        // Another source is free meanwhile.
        if case .claimed(let films) = try await other.claimImport(of: .films) { await films.release() } else { Issue.record("films were held") }
        var finished = report
        finished.status = .succeeded
        try await temporary.store.failImport(finished)
        await claim.release()
        guard case .claimed(let next) = try await other.claimImport(of: .products) else {
            Issue.record("the source stayed held after its claim was released")
            return
        }
        await next.release()
    }

    @Test(arguments: StoreBackend.available)
    func aRunLeftRunningByAProcessThatStoppedIsFailedByTheNextClaim(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        var orphan: ImportReport?
        guard let claim = try await Self.claimAfterAProcessThatStops(temporary, after: { orphan = try await $0.beginImport(source: .products) })
        else {
            Issue.record("a claim was refused, or the claim of a stopped process was never let go")
            return
        }
        await claim.release()
        let report = try await temporary.store.importReport(id: try #require(orphan).id).0
        #expect(report?.status == .failed)
        #expect(report?.error?.hasPrefix("interrupted:") == true)
    }

    /// On PostgreSQL the claim is a lock held by a connection, which can end while the replica lives (a cut
    /// connection, an operator's `pg_terminate_backend`); another replica may run the source from then on.
    @Test(arguments: StoreBackend.available.filter { $0 == .postgres })
    func aRunWhoseClaimWasLostAppliesNothing(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        guard case .claimed(let claim) = try await temporary.store.claimImport(of: .products) else {
            Issue.record("the claim was refused")
            return
        }
        defer { Task { await claim.release() } }
        let report = try await temporary.store.beginImport(source: .products)
        let before = try await temporary.store.versions()
        try await temporary.executeRaw(
            """
            SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, [])
        let listing = CompletedListing(
            records: .products([Product(serialCode: "A", name: "A", category: "c", price: try Price(parsing: "1"))]), pages: [])
        await #expect(throws: (any Error).self) {
            _ = try await temporary.store.completeImport(report, listing: listing, under: claim)
        }
        #expect(try await temporary.store.products(ProductFilter(), page: PageRequest()).rows.isEmpty)
        #expect(try await temporary.store.versions() == before)
    }

    @Test(arguments: StoreBackend.available.filter { $0 == .postgres })
    func rowsStagedByAProcessThatStoppedAreDeletedByTheNextClaim(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let noStagedRows = """
            DO $$ BEGIN IF EXISTS (SELECT 1 FROM staged_products) THEN RAISE EXCEPTION 'staged rows are left'; END IF; END $$
            """
        guard
            let claim = try await Self.claimAfterAProcessThatStops(
                temporary,
                after: { stopped in
                    let staging = try await stopped.makeStaging()
                    _ = try await staging.stage([(0, Product(serialCode: "A", name: "A", category: "c", price: try Price(parsing: "1")))])
                    await #expect(throws: (any Error).self) { try await temporary.executeRaw(noStagedRows, []) }
                })
        else {
            Issue.record("a claim was refused, or the claim of a stopped process was never let go")
            return
        }
        await claim.release()
        try await temporary.executeRaw(noStagedRows, [])
    }
}
