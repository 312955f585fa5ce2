import CatalogStore
import PostgresNIO

/// `PostgresWordPage` of a whole word.
struct PostgresFirstWordPage: PostgresWordPage {
    static let shape = SearchQuery("word ")
    static let sql = statement(of: .products)
    let binds: PostgresBindings
}
