import CatalogStore
import Foundation
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
    /// Opens another store on the same data, as a second process or replica would; the caller closes it.
    public let openAnother: @Sendable () async throws -> any CatalogStore
    private let closeNow: @Sendable () -> Void

    public static func open(_ backend: StoreBackend, logger: Logger = Logger(label: "catalogd-tests")) async throws -> TestStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch backend {
        case .sqlite:
            let path = directory.appendingPathComponent("catalog.sqlite").path
            let store = try SQLiteCatalogStore(path: path)
            return TestStore(backend: backend, store: store, directory: directory, openAnother: { try SQLiteCatalogStore(path: path) }) {
                try? store.close()
            }
        case .postgres:
            let location = try await freshDatabase(logger: logger)
            // Generous: many tests open connections at once on a loaded machine; outages are tested with the default.
            let store = try await PostgresCatalogStore.open(location, poolSize: 10, connectionWait: .seconds(20), logger: logger)
            return TestStore(
                backend: backend, store: store, directory: directory,
                openAnother: { try await PostgresCatalogStore.open(location, poolSize: 10, connectionWait: .seconds(20), logger: logger) }
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
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: location.host, port: location.port, username: location.username, password: location.password, database: location.database,
                tls: .disable),
            id: 1, logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        try await connection.close()
        location.database = name
        location.tls = .disable
        return location
    }
}

public struct PostgresTestServerMissing: Error, CustomStringConvertible {
    public var description: String { "set \(StoreBackend.postgresVariable) to a PostgreSQL URL (scripts/test starts a server and sets it)" }
}
