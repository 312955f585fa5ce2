import CatalogStore
import PostgresNIO

/// `PostgresWordPage` of a typed prefix.
struct PostgresFirstPrefixPage: PostgresWordPage {
    static let shape = SearchQuery("prefix")
    static let sql = statement(of: .products)
    let binds: PostgresBindings
}
