import CatalogModel
import CatalogStore
import Foundation
import GRDB
import GRDBSQLite

/// The catalogue in one embedded SQLite file, the default store: nothing to install or run beside catalogd.
///
/// Reads run in a pool of reader connections (WAL mode), so an import never blocks them and they always see
/// one committed state. Commits by other processes on the same file (`catalogd import` from a shell) are
/// seen by `currentVersions()` and `watchCommits` as soon as they land.
public struct SQLiteCatalogStore: CatalogStore {
    /// How often `watchCommits` asks whether anything committed: a look at the WAL index's header, nanoseconds. An
    /// import by another process commits its changes at once, and until the frequent words' sets have followed them a
    /// search of a common word is counted by the engine (15 ms at 200,000 products): every look sooner shortens that.
    static let commitPollInterval: Duration = .milliseconds(50)

    /// GRDB's pool: its writer and the readers that may wait for a lock. Only `read`, `write` and `close` touch it,
    /// so that every other part of the store goes through a transaction.
    let database: DatabasePool
    private let versionWatch: VersionWatch
    /// Connections for the reads an index answers at once, run on the calling thread.
    let directReaders: DirectReaders
    /// The sets that count and facet searches of the words most products hold (`refreshFrequentTerms`).
    let frequentTerms = FrequentTermShelf()
    /// The file the store lives in.
    public let path: String
    /// The longest a products import written as it is read keeps the store's writer waiting for its next batch.
    let streamedListingWait: Duration

    /// Opens (creating if needed) the store at `path` and applies pending migrations.
    /// - Parameter streamedListingWait: how long an import written as it is read may keep the writer waiting for
    ///   its next page before it gives up and reads the listing whole (`SQLiteStreamedListing`).
    public init(path: String, streamedListingWait: Duration = StreamedListingAbandoned.defaultWait) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        var configuration = Configuration()
        // Another process (`catalogd import` from a shell) may hold the write lock for a while.
        configuration.busyMode = .timeout(30)
        configuration.maximumReaderCount = 8
        configuration.prepareDatabase { db in
            // NORMAL is durable across process crashes in WAL mode; only an OS crash may lose the last commit.
            // The writer gets a 64 MiB page cache (used only as needed): it keeps an import's transaction from
            // spilling pages to disk one by one before its commit, which otherwise costs more than the upserts
            // themselves. Readers keep SQLite's default 2 MiB each; the OS caches the file for all of them.
            try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY")
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -65536") }
        }
        database = try DatabasePool(path: path, configuration: configuration)
        self.path = path
        self.streamedListingWait = streamedListingWait
        try SQLiteSchema.migrator.migrate(database)
        versionWatch = try VersionWatch(path: path)
        directReaders = DirectReaders(path: path)
    }

    public func isMigrated() async throws -> Bool {
        try await read { db in try SQLiteSchema.migrator.hasCompletedMigrations(db) }
    }

    public func appliedMigrations() async throws -> [String] {
        try await read { db in try SQLiteSchema.migrator.appliedMigrations(db) }
    }

    public func versions() async throws -> StoreVersions {
        try await read { db in try StoreVersions.fetch(db) }
    }

    /// Answered at once from a dedicated connection that re-reads the versions only after a commit.
    public func currentVersions() throws -> StoreVersions {
        try versionWatch.current()
    }

    /// Whether `currentVersions()` tells commits from the shared WAL index, for tests.
    var versionsReadFromWALIndex: Bool { versionWatch.readsWALIndex }

    /// Polls the dedicated version connection: commits to the file by any process are seen within one interval.
    public func watchCommits(onError: @escaping @Sendable (any Error) -> Void, onCommit: @escaping @Sendable (Int64) async -> Void) async {
        var reported: Int64?
        while !Task.isCancelled {
            do {
                let lastSeq = try versionWatch.current().lastSeq
                if lastSeq != reported {
                    reported = lastSeq
                    await onCommit(lastSeq)
                }
            } catch {
                onError(error)
            }
            try? await Task.sleep(for: Self.commitPollInterval)
        }
    }

    public var description: String { path }

    /// A read transaction on one of GRDB's readers, which may wait for a lock (up to the busy timeout): never on a
    /// thread the server answers on (those read through `directReaders`, which never wait).
    func read<Value: Sendable>(_ body: @Sendable (Database) throws -> Value) async throws -> Value {
        try await database.read(body)
    }

    /// A transaction on the store's one writer.
    func write<Value: Sendable>(_ body: @Sendable (Database) throws -> Value) async throws -> Value {
        try await database.write(body)
    }

    /// Merges the products' search index after commits (`SearchIndexMerger`): each connection is a file handle that
    /// serves its calls by itself.
    public func runConnections() async {
        await SearchIndexMerger(store: self).run()
    }

    /// Row counts and the file's size.
    public func statistics() async throws -> StoreStatistics {
        try await read { db in try StoreStatistics.fetch(db) }
    }

    /// Closes every connection, the writer last: the last connection to a file checkpoints the log into it and
    /// removes it (when no other process has the file open), and only a connection that can write may. A log left
    /// behind is read whole by the next process to open the file, to rebuild its index: that start then takes longer
    /// the larger the log, and a large first import leaves a large one.
    public func close() throws {
        versionWatch.close()
        directReaders.close()
        // GRDB closes its writer before its readers; closing the readers first leaves the writer the last.
        database.releaseMemory()
        try database.close()
    }
}

extension StoreStatistics {
    /// Row counts and the file's size, as of the read transaction of `db`.
    static func fetch(_ db: Database) throws -> StoreStatistics {
        func count(_ table: String) throws -> Int {
            try Int.fetchOne(try db.cachedStatement(sql: "SELECT COUNT(*) FROM \(table)")) ?? 0
        }
        return StoreStatistics(
            films: try count("films"), products: try count("products"), categories: try count("categories"), changes: try count("changes"),
            bytes: try Int.fetchOne(try db.cachedStatement(sql: "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"))
                ?? 0)
    }
}

extension StoreVersions {
    /// The four numbers in one statement, so in one read transaction even outside one.
    static let selectSQL = """
        SELECT \(ResourceFamily.allCases.map { "(SELECT version FROM versions WHERE name = '\($0.rawValue)')" }.joined(separator: ", ")),
            (\(lastSeqSQL))
        """

    /// The versions in the row of `selectSQL` the statement is on.
    init(_ statement: SQLiteStatement) {
        let row = DirectRow(statement: statement)
        self.init(films: row.integer(0), products: row.integer(1), imports: row.integer(2), lastSeq: row.integer(3))
    }

    static func fetch(_ source: some SQLiteReading) throws -> StoreVersions {
        var versions = StoreVersions(films: 0, products: 0, imports: 0, lastSeq: 0)
        try source.forEachRow(selectSQL, []) { _, statement in
            versions = StoreVersions(statement)
            return false
        }
        return versions
    }

    static func lastSeq(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(try db.cachedStatement(sql: lastSeqSQL)) ?? 0
    }

    private static let lastSeqSQL = "SELECT seq FROM sqlite_sequence WHERE name = 'changes'"
}
