import CatalogStore
import GRDB
import GRDBSQLite

/// The row a statement is on (a `DirectReader`'s or GRDB's), its columns read by position as the statement selects
/// them, or by name for the columns a listing selects after a row's own (`TrailingColumn`): the one place outside
/// the Direct* files that calls SQLite's column functions.
struct DirectRow {
    let statement: SQLiteStatement

    func integer(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    /// The column's text as SQLite holds it, lent until the statement moves; NULL reads as empty.
    func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
        // Bytes are asked after the text, as SQLite's documentation prescribes: the text call may convert.
        guard let start = sqlite3_column_text(statement, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// The column's text; NULL reads as empty.
    func text(_ column: Int32) -> String {
        String(decoding: bytes(column), as: UTF8.self)
    }

    /// A sort value or key: an integer, a text, or NULL.
    func value(_ column: Int32) -> ListCursor.Value {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: .integer(integer(column))
        case SQLITE_TEXT: .text(text(column))
        default: .null
        }
    }

    /// Where a trailing column stands in this statement's row.
    func position(_ column: some TrailingColumn) -> Int32 {
        sqlite3_column_count(statement) - column.rawValue
    }

    func integer(_ column: some TrailingColumn) -> Int64 { integer(position(column)) }

    func value(_ column: some TrailingColumn) -> ListCursor.Value { value(position(column)) }
}
