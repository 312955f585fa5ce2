import CatalogModel
import Foundation
import GRDB

/// The catalogue's embedded SQLite store: the only code that reads or writes its tables.
///
/// Every public method is one transaction; every write keeps derived counts, history and
/// resource versions true before it commits. Reads run in a pool of reader connections
/// (WAL mode), so an import never blocks them and they always see one committed state.
public struct CatalogStore: Sendable {
    let database: DatabasePool
    private let versionWatch: VersionWatch
    /// The file the store lives in.
    public let path: String

    /// Opens (creating if needed) the store at `path` and applies pending migrations.
    public init(path: String) throws {
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
        try Schema.migrator.migrate(database)
        versionWatch = try VersionWatch(path: path)
    }

    /// Whether every migration this build knows has been applied.
    public func isMigrated() async throws -> Bool {
        try await database.read { db in try Schema.migrator.hasCompletedMigrations(db) }
    }

    /// Identifiers of the applied migrations, oldest first.
    public func appliedMigrations() async throws -> [String] {
        try await database.read { db in try Schema.migrator.appliedMigrations(db) }
    }

    /// The current version of each resource family; a version changes exactly when its data changes.
    public func versions() async throws -> StoreVersions {
        try await database.read { db in try StoreVersions.fetch(db) }
    }

    /// The same as `versions()`, answered at once from a dedicated connection that re-reads the versions
    /// only after a commit: the check every GET makes before anything else.
    public func currentVersions() throws -> StoreVersions {
        try versionWatch.current()
    }

    /// Row counts and file size, for `/metrics`.
    public func statistics() async throws -> StoreStatistics {
        try await database.read { db in
            StoreStatistics(
                films: try Int.fetchOne(try db.cachedStatement(sql: "SELECT COUNT(*) FROM films")) ?? 0,
                products: try Int.fetchOne(try db.cachedStatement(sql: "SELECT COUNT(*) FROM products")) ?? 0,
                categories: try Int.fetchOne(try db.cachedStatement(sql: "SELECT COUNT(*) FROM categories")) ?? 0,
                changes: try Int.fetchOne(try db.cachedStatement(sql: "SELECT COUNT(*) FROM changes")) ?? 0,
                bytes: (try Int.fetchOne(try db.cachedStatement(sql: "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")))
                    ?? 0
            )
        }
    }

    /// Closes every connection; used before the process exits.
    public func close() throws {
        versionWatch.close()
        try database.close()
    }
}

/// The version of each resource family, read in one transaction.
public struct StoreVersions: Sendable, Equatable {
    public var films: Int64
    public var products: Int64
    public var imports: Int64
    /// The newest change token, what `GET /changes?since=` resumes from.
    public var lastSeq: Int64

    /// The version of `family`.
    public subscript(family: ResourceFamily) -> Int64 {
        switch family {
        case .films: films
        case .products: products
        case .imports: imports
        }
    }

    static func fetch(_ db: Database) throws -> StoreVersions {
        var versions = StoreVersions(films: 0, products: 0, imports: 0, lastSeq: 0)
        for row in try Row.fetchAll(try db.cachedStatement(sql: "SELECT name, version FROM versions")) {
            let name: String = row["name"]
            let version: Int64 = row["version"]
            switch ResourceFamily(rawValue: name) {
            case .films: versions.films = version
            case .products: versions.products = version
            case .imports: versions.imports = version
            case nil: throw UnreadableStoredValue(column: "versions.name", value: name)
            }
        }
        versions.lastSeq = try lastSeq(db)
        return versions
    }

    static func lastSeq(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(try db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = 'changes'")) ?? 0
    }
}

/// Sizes of the store, for operations.
public struct StoreStatistics: Sendable, Equatable {
    public var films: Int
    public var products: Int
    public var categories: Int
    public var changes: Int
    public var bytes: Int
}
