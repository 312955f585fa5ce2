import CatalogStore
import Logging
import PostgresStore
import SQLiteStore

/// What `--database` / `CATALOG_DATABASE` names, and the store that opens it: a `postgres://` or
/// `postgresql://` URL is a PostgreSQL database, anything else a file path for the embedded SQLite store.
/// The one place that knows the engines.
enum StoreLocation {
    static let defaultLocation = "./data/catalog.sqlite"
    static let defaultPoolSize = 10
    /// The change feed's watch and a running import's claim each keep a connection; requests need at least one more.
    static let minimumPoolSize = 3

    static func open(_ location: String, poolSize: Int, logger: Logger) async throws -> any CatalogStore {
        if PostgresLocation.names(location) {
            return try await PostgresCatalogStore.open(try PostgresLocation(url: location), poolSize: poolSize, logger: logger)
        }
        return try SQLiteCatalogStore(path: location)
    }

    /// The location as logs and messages may show it: a URL's password is left out.
    static func described(_ location: String) -> String {
        guard PostgresLocation.names(location) else { return location }
        return (try? PostgresLocation(url: location))?.description ?? "an unreadable PostgreSQL URL"
    }
}
