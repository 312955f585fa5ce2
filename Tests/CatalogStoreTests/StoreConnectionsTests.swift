import CatalogModel
import CatalogStore
import CatalogTestSupport
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import PostgresStore

/// A PostgreSQL store's pool runs only inside the structure that uses it: no task outlives `withConnections`,
/// and `close()` ends a pool run by hand; a call whose connection the server ended does not wait for it.
@Suite("The store's connections (PostgreSQL)")
struct StoreConnectionsTests {
    @Test func thePoolServesInsideWithConnectionsAndEndsWithIt() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let logger = Logger(label: "catalogd-tests")
        let location = try await TestStore.freshDatabase(logger: logger)
        // Generous, as in every test beside the other suites: a call after the pool has gone is refused at once anyway.
        let store = try await PostgresCatalogStore.open(location, connectionWait: .seconds(20), logger: logger)
        defer { store.close() }
        let inside = try await store.withConnections { try await store.statistics() }
        #expect(inside.products == 0)
        let started = ContinuousClock.now
        await #expect(throws: StoreUnavailable.self) { try await store.statistics() }
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test func closeEndsAPoolRunByHand() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let logger = Logger(label: "catalogd-tests")
        // Generous, as for every test store: beside the other suites the server may take seconds to start a session,
        // and the wait is not what is asked here.
        let store = try await PostgresCatalogStore.open(
            try await TestStore.freshDatabase(logger: logger), connectionWait: .seconds(20), logger: logger)
        async let running: Void = store.runConnections()
        #expect(try await store.versions().lastSeq == 0)
        store.close()
        let started = ContinuousClock.now
        await running
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// Whether `operation` returns within `limit`; one that does not is left running, as a wait for ever cannot be cancelled.
    static func returns(within limit: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
        let (ends, end) = AsyncStream<Bool>.makeStream()
        Task {
            await operation()
            end.yield(true)
        }
        Task {
            try? await Task.sleep(for: limit)
            end.yield(false)
        }
        for await first in ends { return first }
        return false
    }

    /// The server ends the session that holds the claim, as a restart does, while the run goes on: giving the claim back
    /// returns at once, and the source can be claimed again.
    @Test func aClaimWhoseConnectionTheServerEndedIsGivenBackAtOnce() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let testStore = try await TestStore.open(.postgres)
        defer { testStore.remove() }
        guard case .claimed(let claim) = try await testStore.store.claimImport(of: .products) else {
            Issue.record("products could not be claimed")
            return
        }
        let holder = try #require(claim as? PostgresClaim).holderProcess
        try await testStore.executeRaw("SELECT pg_terminate_backend(?::integer)", [.integer(Int(holder))])
        // Long enough for the driver to have closed the connection: a statement sent before then fails as it should.
        try await Task.sleep(for: .seconds(1))
        let released = await Self.returns(within: .seconds(5)) { await claim.release() }
        #expect(released, "giving back a claim whose connection had ended did not return within 5 s")
        guard case .claimed(let next) = try await testStore.store.claimImport(of: .products) else {
            Issue.record("products could not be claimed again")
            return
        }
        await next.release()
    }

    /// The version check's connection starts the pools afresh only when the server was away: a check that took too long
    /// (the versions table locked by another session, as on a busy server) opens a new connection without it; a session
    /// the server ended (a restart) is followed by a renewal.
    @Test func theVersionCheckRenewsThePoolsOnlyAfterTheServerWasAway() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let logger = Logger(label: "catalogd-tests")
        let location = try await TestStore.freshDatabase(logger: logger)
        try await PostgresCatalogStore.open(location, logger: logger).close()
        let renewals = Mutex(0)
        // A wait a connection is made within on a machine busy with the other suites; the locked check overruns any.
        let check = PostgresCheckConnection(location: location, wait: .seconds(3), logger: logger) { renewals.withLock { $0 += 1 } }
        defer { check.close() }
        _ = try await check.versions()
        let other = try await TestStore.connect(location, logger: logger)
        // The connection is closed whatever happens: one released open is a failed assertion of the driver's.
        do {
            try await other.query("BEGIN", logger: logger)
            try await other.query("LOCK TABLE versions IN ACCESS EXCLUSIVE MODE", logger: logger)
            await #expect(throws: StoreUnavailable.self) { try await check.versions() }
            try await other.query("ROLLBACK", logger: logger)
            _ = try await check.versions()
            #expect(renewals.withLock { $0 } == 0, "a check that overran renewed the pools")
            try await other.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
                logger: logger)
            try await Task.sleep(for: .milliseconds(500))
            // The first check after may still find the ended session open, and fail on it; the one after reconnects.
            if (try? await check.versions()) == nil { _ = try await check.versions() }
            #expect(renewals.withLock { $0 } == 1, "a session the server ended was not followed by a renewal")
        } catch {
            try? await other.close()
            throw error
        }
        try await other.close()
    }

    /// The server ends a transaction's session between two of its statements (a restart while an import waits for its
    /// next batch): the next statement is `StoreUnavailable` within moments rather than a wait for ever.
    @Test func aTransactionWhoseConnectionTheServerEndedIsUnavailable() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let testStore = try await TestStore.open(.postgres)
        defer { testStore.remove() }
        let store = try #require(testStore.store as? PostgresCatalogStore)
        let logger = Logger(label: "catalogd-tests")
        // The session that ends the transaction's is started first: the store tells of the end as soon as its
        // connection closes, which may come before that session's own statement has returned, and well before it
        // could close (the transaction is then over, its session's end already marked).
        let ender = try await TestStore.connect(try #require(testStore.postgresLocation), logger: logger)
        // Timed from the session's end: taking a connection and starting the other session that ends it take seconds
        // of their own when every suite runs at once on two cores (6 s for the connection alone, with a release build
        // beside them), and are not what is asked here. The steps' times name the one that was slow if it fails.
        let sessionEnded = Mutex<ContinuousClock.Instant?>(nil)
        let steps = Mutex<[String]>([])
        let started = ContinuousClock.now
        let step = { @Sendable (name: String) in steps.withLock { $0.append("\(name) after \(started.duration(to: .now))") } }
        let returned = await Self.returns(within: .seconds(180)) {
            do {
                try await store.transaction(.write) { connection in
                    step("connection taken")
                    var process: Int32 = 0
                    for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: logger).decode(Int32.self) { process = pid }
                    sessionEnded.withLock { $0 = .now }
                    step("session ending")
                    try await ender.query("SELECT pg_terminate_backend(\(process))", logger: logger)
                    step("session ended")
                    try await Task.sleep(for: .seconds(1))
                    try await connection.query("SELECT 1", logger: logger)
                }
                step("returned without an error")
                Issue.record("a statement on a connection the server had ended did not fail: \(steps.withLock { $0 })")
            } catch {
                step("threw \(String(reflecting: error))")
                #expect(error is StoreUnavailable, "\(steps.withLock { $0 })")
            }
        }
        try await ender.close()
        #expect(returned, "the transaction did not return within 180 s: \(steps.withLock { $0 })")
        let ended = try #require(sessionEnded.withLock { $0 }, "the transaction did not reach the end of its session: \(steps.withLock { $0 })")
        #expect(ended.duration(to: .now) < .seconds(5), "a statement on a connection the server had ended took 5 s or more: \(steps.withLock { $0 })")
    }
}
