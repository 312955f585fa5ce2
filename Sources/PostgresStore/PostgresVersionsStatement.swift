import CatalogStore
import PostgresNIO

/// The versions, as a statement prepared once per connection: the per-GET check runs it on its own connection
/// again and again, and a prepared statement is neither parsed nor planned again.
struct PostgresVersionsStatement: PostgresPreparedStatement {
    static let sql = "SELECT \(PostgresCatalogStore.versionColumns)"

    func makeBindings() -> PostgresBindings { PostgresBindings() }

    func decodeRow(_ row: PostgresRow) throws -> StoreVersions {
        try PostgresCatalogStore.versions(from: row.makeRandomAccess())
    }
}
