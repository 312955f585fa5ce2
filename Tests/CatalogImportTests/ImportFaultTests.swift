import CatalogFixtures
import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

@Suite("Import faults leave the store as it was")
struct ImportFaultTests {
    /// Imports the original catalogue, applies the fault to a changed one, and checks that the failed
    /// run changed nothing: the same rows, the same versions, and a failed report naming the cause.
    func expectFailureLeavesStoreUnchanged(_ faults: FixtureFaults, policy: UpstreamPolicy = ImportHarness.quickPolicy, cause: String) async throws {
        let original = FixtureCatalog(films: 0, products: 40)
        let harness = try await ImportHarness.start(original)
        defer { Task { await harness.stop() } }
        let importer = harness.importer(policy: policy)
        _ = try await importer.run(.products)
        let rowsBefore = try await harness.allProducts()
        let versionsBefore = try await harness.store.versions()
        await harness.upstream.setCatalog(original.changing(fraction: 0.5).dropping(products: 10))
        await harness.upstream.setFaults(faults)
        let report = try await importer.run(.products)
        #expect(report.status == .failed)
        let error = report.error ?? ""
        #expect(error.contains(cause), "error was: \(error)")
        let rowsAfter = try await harness.allProducts()
        #expect(rowsAfter == rowsBefore)
        let versionsAfter = try await harness.store.versions()
        #expect(versionsAfter.products == versionsBefore.products)
        #expect(versionsAfter.lastSeq == versionsBefore.lastSeq)
        let (stored, _) = try await harness.store.importReport(id: report.id)
        #expect(stored?.status == .failed)
        #expect(stored?.error == report.error)
    }

    @Test func a5xxOnTheLastPageChangesNothing() async throws {
        // The changed listing has 30 products: in pages of 7, page 5 is the last.
        try await expectFailureLeavesStoreUnchanged(FixtureFaults(failPage: 5), cause: "HTTP 500")
    }

    @Test func truncatedJSONChangesNothing() async throws {
        try await expectFailureLeavesStoreUnchanged(FixtureFaults(truncateBody: true), cause: "malformed JSON")
    }

    @Test func aTimeoutChangesNothing() async throws {
        var policy = ImportHarness.quickPolicy
        policy.requestTimeout = .milliseconds(300)
        policy.maximumAttempts = 2
        try await expectFailureLeavesStoreUnchanged(FixtureFaults(delayMilliseconds: 1500), policy: policy, cause: "page 1")
    }

    @Test(arguments: StoreBackend.available) func a429IsRetriedAfterItsRetryAfterAndSucceeds(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 0, products: 10), faults: FixtureFaults(rateLimitFirst: 1))
        defer { Task { await harness.stop() } }
        let started = ContinuousClock.now
        let report = try await harness.importer().run(.products)
        let elapsed = ContinuousClock.now - started
        #expect(report.status == .succeeded)
        #expect(report.inserted == 10)
        #expect(elapsed >= .milliseconds(900), "Retry-After: 1 was not honoured")
        let statuses = await harness.upstream.requestLog().map(\.status)
        #expect(statuses.first == 429)
    }

    @Test(arguments: StoreBackend.available) func aRunningImportRefusesASecondOneOfTheSameSource(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(
            on: backend, FixtureCatalog(films: 0, products: 20), faults: FixtureFaults(delayMilliseconds: 300))
        defer { Task { await harness.stop() } }
        let importer = harness.importer()
        let (first, completion) = try await importer.start(.products)
        await #expect(throws: ImportStartError.alreadyRunning(first.id)) {
            _ = try await importer.start(.products)
        }
        let finished = await completion.value
        #expect(finished.status == .succeeded)
    }

    @Test(arguments: StoreBackend.available) func cancellingARunRollsItBackAndRecordsWhy(_ backend: StoreBackend) async throws {
        let original = FixtureCatalog(films: 0, products: 40)
        let harness = try await ImportHarness.start(on: backend, original)
        defer { Task { await harness.stop() } }
        let importer = harness.importer()
        _ = try await importer.run(.products)
        let before = try await harness.allProducts()
        await harness.upstream.setCatalog(original.changing(fraction: 1))
        await harness.upstream.setFaults(FixtureFaults(delayMilliseconds: 200))
        let (_, completion) = try await importer.start(.products)
        try await Task.sleep(for: .milliseconds(500))
        await importer.cancelAll()
        let report = await completion.value
        #expect(report.status == .failed)
        #expect(report.error?.contains("cancelled") == true)
        let after = try await harness.allProducts()
        #expect(after == before)
    }

    @Test(arguments: StoreBackend.available) func afterShutdownNoRunStartsAndNoneIsLeftRunning(_ backend: StoreBackend) async throws {
        let harness = try await ImportHarness.start(on: backend, FixtureCatalog(films: 0, products: 40))
        defer { Task { await harness.stop() } }
        let importer = harness.importer()
        await harness.upstream.setFaults(FixtureFaults(delayMilliseconds: 200))
        let (_, completion) = try await importer.start(.products)
        try await Task.sleep(for: .milliseconds(300))
        await importer.shutDown()
        #expect(await completion.value.status == .failed)
        await #expect(throws: ImportStartError.shuttingDown) { try await importer.start(.products) }
        await #expect(throws: ImportStartError.shuttingDown) { try await importer.start(.films) }
        let reports = try await harness.store.importReports(page: PageRequest()).rows
        #expect(reports.count == 1, "a refused start records no run")
        #expect(reports.allSatisfy { $0.status != .running })
        #expect(try await harness.allProducts().isEmpty)
    }
}
