import CatalogStore

extension Change.Entity {
    /// The table that holds rows of this kind.
    package var table: String {
        switch self {
        case .film: "films"
        case .product: "products"
        }
    }

    /// The column that holds a row's key; the change feed shows it as text.
    package var keyColumn: String {
        switch self {
        case .film: "episode_id"
        case .product: "serial_code"
        }
    }
}
