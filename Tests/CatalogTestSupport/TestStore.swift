import CatalogStore
import Foundation
import GRDB
import Logging
import PostgresNIO
import PostgresStore
import SQLiteStore

/// The engines a suite runs against: SQLite always; PostgreSQL when `CATALOG_TEST_POSTGRES_URL` names a server
/// (`scripts/test` starts a throwaway one and sets it), each test on a database of its own.
public enum StoreBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public static let postgresVariable = "CATALOG_TEST_POSTGRES_URL"

    public static var available: [StoreBackend] {
        ProcessInfo.processInfo.environment[postgresVariable].map { $0.isEmpty ? [.sqlite] : [.sqlite, .postgres] } ?? [.sqlite]
    }

    public var description: String { rawValue }
}

/// A fresh, empty store on one backend, with a temporary folder beside it.
public struct TestStore: Sendable {
    public let backend: StoreBackend
    public let store: any CatalogStore
    public let directory: URL
    /// Where the PostgreSQL store's database is; nil on SQLite.
    public var postgresLocation: PostgresLocation? = nil
    /// Opens another store on the same data, as a second process or replica would; the caller closes it.
    public let openAnother: @Sendable () async throws -> any CatalogStore
    /// Runs SQL on the data behind the store's back, as an operator at a database prompt would.
    public let executeRaw: @Sendable (_ sql: String, _ arguments: [RawArgument]) async throws -> Void
    private let closeNow: @Sendable () -> Void

    /// A value for `executeRaw`; its statements mark parameters with `?`.
    public enum RawArgument: Sendable {
        case text(String)
        case integer(Int)
    }

    public static func open(_ backend: StoreBackend, logger: Logger = Logger(label: "catalogd-tests")) async throws -> TestStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch backend {
        case .sqlite:
            let path = directory.appendingPathComponent("catalog.sqlite").path
            let store = try SQLiteCatalogStore(path: path)
            return TestStore(
                backend: backend, store: store, directory: directory, openAnother: { try SQLiteCatalogStore(path: path) },
                executeRaw: { sql, arguments in
                    let queue = try DatabaseQueue(path: path)
                    try await queue.write { db in
                        try db.execute(
                            sql: sql,
                            arguments: StatementArguments(
                                arguments.map { argument -> any DatabaseValueConvertible in
                                    switch argument {
                                    case .text(let text): text
                                    case .integer(let integer): integer
                                    }
                                }))
                    }
                    try queue.close()
                }
            ) { try? store.close() }
        case .postgres:
            let location = try await freshDatabase(logger: logger)
            // Generous: many tests open connections at once on a loaded machine; outages are tested with the default.
            let store = try await running(PostgresCatalogStore.open(location, poolSize: 10, connectionWait: .seconds(20), logger: logger))
            return TestStore(
                backend: backend, store: store, directory: directory, postgresLocation: location,
                openAnother: { try await running(PostgresCatalogStore.open(location, poolSize: 10, connectionWait: .seconds(20), logger: logger)) },
                executeRaw: { sql, arguments in
                    let connection = try await connect(location, logger: logger)
                    var binds = PostgresBindings()
                    var numbered = ""
                    for character in sql {
                        guard character == "?" else {
                            numbered.append(character)
                            continue
                        }
                        switch arguments[binds.count] {
                        case .text(let text): binds.append(text)
                        case .integer(let integer): binds.append(Int64(integer))
                        }
                        numbered += "$\(binds.count)"
                    }
                    // Closed whatever the statement does: a connection must not outlive its use unclosed.
                    do {
                        try await connection.query(PostgresQuery(unsafeSQL: numbered, binds: binds), logger: logger)
                    } catch {
                        try await connection.close()
                        throw error
                    }
                    try await connection.close()
                }
            ) { store.close() }
        }
    }

    /// Closes the store and deletes the folder; a PostgreSQL test database stays until the throwaway cluster goes.
    public func remove() {
        closeNow()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new database on the server `CATALOG_TEST_POSTGRES_URL` names.
    public static func freshDatabase(logger: Logger) async throws -> PostgresLocation {
        guard let url = ProcessInfo.processInfo.environment[StoreBackend.postgresVariable] else {
            throw PostgresTestServerMissing()
        }
        var location = try PostgresLocation(url: url)
        let name = "catalogd_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        let connection = try await connect(location, logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        try await connection.close()
        location.database = name
        location.tls = .disable
        return location
    }
}

extension TestStore {
    /// `store` with its pool running until it is closed, as the test's structure is the test framework's, not
    /// one `withConnections` could wrap.
    static func running(_ store: PostgresCatalogStore) -> PostgresCatalogStore {
        Task { await store.runConnections() }
        return store
    }

    /// One connection of its own to the database at `location`.
    public static func connect(_ location: PostgresLocation, logger: Logger) async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            configuration: .init(
                host: location.host, port: location.port, username: location.username, password: location.password, database: location.database,
                tls: .disable),
            id: 1, logger: logger)
    }
}

public struct PostgresTestServerMissing: Error, CustomStringConvertible {
    public var description: String { "set \(StoreBackend.postgresVariable) to a PostgreSQL URL (scripts/test starts a server and sets it)" }
}
