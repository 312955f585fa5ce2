import CatalogStore
import GRDB
import GRDBSQLite

extension ListCursor.Value {
    /// The value in `column` of the row the statement is on.
    init(_ statement: SQLiteStatement, column: Int32) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, column))
        case SQLITE_TEXT:
            let bytes = UnsafeBufferPointer(start: sqlite3_column_text(statement, column), count: Int(sqlite3_column_bytes(statement, column)))
            self = .text(String(decoding: bytes, as: UTF8.self))
        default: self = .null
        }
    }

    /// The value as a statement argument.
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .null: .null
        }
    }
}
