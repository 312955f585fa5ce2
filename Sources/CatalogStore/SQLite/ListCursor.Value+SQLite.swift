import CatalogStore
import GRDB

extension ListCursor.Value {
    /// The value as a statement argument.
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .null: .null
        }
    }
}
