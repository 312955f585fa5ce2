import CatalogStore
import SQLiteStore

/// What `--database` / `CATALOG_DATABASE` names, and the store that opens it: a file path is the embedded
/// SQLite store. The one place that knows the engines.
enum StoreLocation {
    static let defaultLocation = "./data/catalog.sqlite"

    static func open(_ location: String) throws -> any CatalogStore {
        try SQLiteCatalogStore(path: location)
    }
}
