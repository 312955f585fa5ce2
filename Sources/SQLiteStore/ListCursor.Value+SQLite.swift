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

extension ListCursor.Value {
    /// A value of a row, read back; a real or a blob, which no checked column holds, reads as its text.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .string(let text): self = .text(text)
        case .double, .blob: self = .text(value.description)
        }
    }
}
