import CatalogModel
import CatalogStore
import Logging
import PostgresNIO

/// The catalogue in a PostgreSQL database, shared by any number of catalogd replicas.
///
/// Every method is one transaction. Reads run at `REPEATABLE READ`, so a page, its count and the versions it
/// reports come from one snapshot. Writes that record history first take a transaction-level advisory lock
/// (`PostgresLock.history`) and only then read the last seq: the lock is held until commit, so seqs are given
/// and committed in the same order across every replica, without gaps, and a client following the change
/// feed never skips or repeats one. Each such commit also sends `NOTIFY catalogd_commits` with its last seq.
public struct PostgresCatalogStore: CatalogStore {
    /// The channel every write commits a notification to, with the newest seq as its payload.
    static let commitChannel = "catalogd_commits"
    /// The longest a request waits for a pooled connection before it is answered 503, unless told otherwise.
    public static let defaultConnectionWait: Duration = .seconds(2)
    /// The least time the migrations' connection waits for the server to answer (see `migrate`).
    static let migrationConnectionWait: Duration = .seconds(10)
    /// How often `watchCommits` asks for the newest seq while its listening connection is down.
    static let fallbackPollInterval: Duration = .milliseconds(500)

    let client: PostgresPool
    /// The first word pages' connections (`PostgresGenericPlanPool`), as many at most as `client`'s.
    let genericPlans: PostgresGenericPlanPool
    let logger: Logger
    /// The longest a products import written as it is read keeps the history lock waiting for its next batch.
    public var streamedListingWait = StreamedListingAbandoned.defaultWait
    /// The longest a call waits for a pooled connection before it is `StoreUnavailable`.
    let connectionWait: Duration
    /// How this store's listings read a ranked page (`PostgresListing.planner`); tests lower its limits.
    var searchPlanner = SearchPlanner(reads: PostgresListing.searchReads)
    public let location: PostgresLocation
    /// Ends when `close()` is called, and with it `runConnections()`.
    private let closing: AsyncStream<Void>
    private let closed: AsyncStream<Void>.Continuation
    private let currentVersionsCheck = SharedCheck<StoreVersions>()
    /// The sets that count and facet searches of the words most products hold (`refreshFrequentTerms`).
    let frequentTerms = FrequentTermShelf()
    /// What the database makes of each character in a search vector, read by the first write of products.
    let searchAlphabet = PostgresSearchAlphabet.Shelf()
    private let checkConnection: PostgresCheckConnection

    /// Applies pending migrations on a connection of its own, waiting up to `startupWait` for the server to
    /// answer, and returns a store with a pool of at most `poolSize` connections, which serves calls while
    /// `runConnections()` runs.
    public static func open(
        _ location: PostgresLocation, poolSize: Int = 10, connectionWait: Duration = defaultConnectionWait, startupWait: Duration = .seconds(30),
        logger: Logger
    ) async throws -> PostgresCatalogStore {
        let deadline = ContinuousClock.now + startupWait
        while true {
            do {
                try await migrate(location, connectionWait: connectionWait, logger: logger)
                return connect(location, poolSize: poolSize, connectionWait: connectionWait, logger: logger)
            } catch {
                guard error is StoreUnavailable || PostgresFailure.isConnectionFailure(error) else { throw error }
                guard ContinuousClock.now < deadline, !Task.isCancelled else {
                    throw error as? StoreUnavailable ?? StoreUnavailable(store: location.description, reason: PostgresFailure.describe(error))
                }
                logger.warning("waiting for \(location): \(PostgresFailure.describe(error))")
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// A store on the server at `location`, which may not be there yet: nothing is asked of it until a method is
    /// called, and then a server that is away is `StoreUnavailable`. `open` also waits for it and migrates.
    public static func connect(
        _ location: PostgresLocation, poolSize: Int = 10, connectionWait: Duration = defaultConnectionWait, logger: Logger
    ) -> PostgresCatalogStore {
        let (closing, closed) = AsyncStream<Void>.makeStream()
        let genericPlans = PostgresGenericPlanPool(
            client: PostgresPool(configuration: location.clientConfiguration(poolSize: poolSize, plans: .generic), logger: logger),
            connectionWait: connectionWait, store: location.description)
        let client = PostgresPool(configuration: location.clientConfiguration(poolSize: poolSize), logger: logger)
        // The version check's connection is the first to find the server back after an outage: the pools start afresh
        // then, rather than wait out the pause their failed attempts to connect have grown to.
        let checkConnection = PostgresCheckConnection(location: location, wait: connectionWait, logger: logger) {
            client.renew()
            genericPlans.client.renew()
        }
        return PostgresCatalogStore(
            client: client, genericPlans: genericPlans, logger: logger, connectionWait: connectionWait, location: location, closing: closing,
            closed: closed, checkConnection: checkConnection)
    }

    /// Migrations run before the pool does, so that the pool runs only inside its owner's structure. Their
    /// connection waits at least `migrationConnectionWait` for the server's answer: a server starting up, or a
    /// machine busy starting several replicas, takes longer than a request should wait.
    private static func migrate(_ location: PostgresLocation, connectionWait: Duration, logger: Logger) async throws {
        let wait = max(connectionWait, migrationConnectionWait)
        let connection = try await PostgresCheckConnection.connect(to: location, within: wait, logger: logger)
        do {
            try await PostgresSchema.migrate(connection, logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    public var description: String { location.description }

    /// Runs the pools until `close()` or cancellation; every call waits for one of their connections.
    public func runConnections() async {
        let (client, genericPlanClient, closing) = (client, genericPlans.client, closing)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { await genericPlanClient.run() }
            group.addTask { for await _ in closing {} }
            await group.next()
            group.cancelAll()
        }
    }

    /// Ends the pool's connections and the version check's.
    public func close() {
        closed.finish()
        checkConnection.close()
    }

    // MARK: Transactions

    /// Runs `body` in one transaction on one pooled connection. A lost connection, or no connection within
    /// `connectionWait` (the server down, or every connection busy), is `StoreUnavailable`; once it has its
    /// connection, the transaction takes as long as it takes.
    func transaction<Result: Sendable>(
        _ kind: PostgresTransactionKind, _ body: @Sendable @escaping (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await Self.transaction(kind, on: client, connectionWait: connectionWait, store: description, logger: logger, body)
    }

    /// `transaction` on a connection of `client`, the store's pool or another of its pools.
    static func transaction<Result: Sendable>(
        _ kind: PostgresTransactionKind, on client: PostgresPool, connectionWait: Duration, store: String, logger: Logger,
        _ body: @Sendable @escaping (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await within(connectionWait, store: store) { lease in
                try await client.transaction(kind, logger: logger, lease: lease, body)
            }
        } catch let error where !(error is StoreUnavailable) && PostgresFailure.isConnectionFailure(error) {
            throw StoreUnavailable(store: store, reason: PostgresFailure.describe(error))
        }
    }

    /// Runs `operation`, which calls `lease.take()` as soon as it holds a connection and gives up if that answers
    /// false. When that has not happened within `connectionWait`, the caller is told `StoreUnavailable` at once and
    /// the work, whenever its connection comes, does nothing: a caller told 503 never has its write committed.
    /// A failure before the connection came is `StoreUnavailable` too.
    static func within<Result: Sendable>(
        _ connectionWait: Duration, store: String, _ operation: @Sendable @escaping (ConnectionLease) async throws -> Result
    ) async throws -> Result {
        let lease = ConnectionLease()
        let work = Task {
            defer { lease.settle() }
            return try await operation(lease)
        }
        guard await lease.settled(within: connectionWait) else {
            work.cancel()
            throw StoreUnavailable(store: store, reason: "no connection within \(connectionWait)")
        }
        do {
            return try await withTaskCancellationHandler {
                try await work.value
            } onCancel: {
                work.cancel()
            }
        } catch  where !lease.wasTaken {
            throw StoreUnavailable(store: store, reason: PostgresFailure.describe(error))
        }
    }

    /// A write transaction that records history: under the history lock, with a change log that is finished
    /// (versions moved, last seq kept, commit notified) before the commit, and the frequent words' sets brought forward
    /// by its products' changes (`advancedInWrite`), installed once it has committed.
    func recordingTransaction<Result: Sendable>(
        author: String, _ body: @Sendable @escaping (PostgresConnection, inout PostgresChangeLog) async throws -> Result
    ) async throws -> Result {
        let (logger, frequentTerms) = (logger, frequentTerms)
        let (result, productsVersion, advanced) = try await transaction(.write) { connection -> (Result, Int64?, FrequentTerms?) in
            var log = try await PostgresChangeLog(connection, author: author, logger: logger)
            let result = try await body(connection, &log)
            try await log.finish()
            guard let productsVersion = log.versionGiven(to: .products) else { return (result, nil, nil) }
            return (result, productsVersion, await Self.advancedInWrite(frequentTerms.latest, to: productsVersion, connection, logger: logger))
        }
        if let advanced {
            frequentTerms.install(advanced)
            logger.debug(
                "brought the frequent terms' sets forward in a write to products version \(advanced.productsVersion)",
                metadata: ["store.products_version": "\(advanced.productsVersion)"])
        } else if let productsVersion {
            // The reads of this process know at once that the sets are behind, rather than each finding it out by a
            // page read as if they were not.
            frequentTerms.saw(productsVersion: productsVersion)
        }
        return result
    }

    // MARK: Schema and health

    public func appliedMigrations() async throws -> [String] {
        try await transaction(.read) { connection in try await PostgresSchema.appliedMigrations(connection, logger: logger) }
    }

    public func isMigrated() async throws -> Bool {
        let applied = try await appliedMigrations()
        return PostgresSchema.migrations.allSatisfy { applied.contains($0.identifier) }
    }

    public func statistics() async throws -> StoreStatistics {
        try await transaction(.read) { connection in
            let rows = try await connection.query(
                """
                SELECT (SELECT COUNT(*) FROM films), (SELECT COUNT(*) FROM products), (SELECT COUNT(*) FROM categories),
                    (SELECT COUNT(*) FROM changes), pg_database_size(current_database())
                """, logger: logger)
            for try await (films, products, categories, changes, bytes) in rows.decode((Int, Int, Int, Int, Int).self) {
                return StoreStatistics(films: films, products: products, categories: categories, changes: changes, bytes: bytes)
            }
            return StoreStatistics(films: 0, products: 0, categories: 0, changes: 0, bytes: 0)
        }
    }

    // MARK: Versions and commits

    public func versions() async throws -> StoreVersions {
        // One statement: one snapshot, and one round trip rather than three.
        try await transaction(.single) { connection in try await Self.versions(connection, logger: logger) }
    }

    /// A read of the versions that starts after the call, shared with the calls that arrive while the previous
    /// read is on its way (`SharedCheck`), on a connection of its own (`PostgresCheckConnection`): a replica's
    /// answer reflects every write acknowledged by any replica before the call, and a burst of requests costs
    /// one round trip at a time rather than one each.
    public func currentVersions() async throws -> StoreVersions {
        try await currentVersionsCheck.value { try await checkConnection.versions() }
    }

    /// The versions as columns of a row, for any statement that reports them with what it reads.
    static let versionColumns = """
        (SELECT version FROM versions WHERE name = 'films') AS films_version, (SELECT version FROM versions WHERE name = 'products') AS products_version,
        (SELECT version FROM versions WHERE name = 'imports') AS imports_version, (SELECT last_seq FROM history_state) AS last_seq
        """

    static func versions(from row: PostgresRandomAccessRow) throws -> StoreVersions {
        StoreVersions(
            films: try row["films_version"].decode(Int64.self), products: try row["products_version"].decode(Int64.self),
            imports: try row["imports_version"].decode(Int64.self), lastSeq: try row["last_seq"].decode(Int64.self))
    }

    /// The versions, unprepared on the store's pools: postgres-nio keeps a statement whose preparation failed as failed
    /// for the rest of its connection's life, and a read's transaction may be one that failed already. (The version
    /// check's own connection prepares it, and is discarded on any failure: `PostgresCheckConnection`.)
    static func versions(_ connection: PostgresConnection, logger: Logger) async throws -> StoreVersions {
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: "SELECT \(versionColumns)"), logger: logger) {
            return try versions(from: row.makeRandomAccess())
        }
        throw UnreadableStoredValue(column: "versions", value: "no row")
    }

    /// Listens for `catalogd_commits` on a connection of its own; while that connection is down, polls.
    public func watchCommits(onError: @escaping @Sendable (any Error) -> Void, onCommit: @escaping @Sendable (Int64) async -> Void) async {
        let (reported, logger) = (ReportedSeq(), logger)
        while !Task.isCancelled {
            do {
                try await client.withOpenConnection { connection in
                    try await connection.listen(on: Self.commitChannel) { notifications in
                        // Listening now: a commit from here on is notified, one before is in this read.
                        await reported.report(try await Self.versions(connection, logger: logger).lastSeq, to: onCommit)
                        for try await notification in notifications {
                            guard let seq = Int64(notification.payload) else { continue }
                            await reported.report(seq, to: onCommit)
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                onError(error)
                if let seq = try? await versions().lastSeq { await reported.report(seq, to: onCommit) }
                try? await Task.sleep(for: Self.fallbackPollInterval)
            }
        }
    }

    /// The newest seq `watchCommits` has reported, so that it reports each one once and never goes back.
    private actor ReportedSeq {
        private var last: Int64?

        func report(_ seq: Int64, to onCommit: @Sendable (Int64) async -> Void) async {
            if let last, seq <= last { return }
            last = seq
            await onCommit(seq)
        }
    }
}
