import GRDB
import GRDBSQLite

/// A prepared statement for the import's hot path, run with values bound straight into SQLite (its `Bindings`
/// serve the `DirectReader`s too).
///
/// GRDB's `execute(arguments:)` builds an array of boxed values for every row; for an import of
/// 100,000 products that costs more than the SQLite work itself. The statement is the writer's own
/// (not GRDB's statement cache), so nothing else sees the bindings it leaves behind.
struct DirectStatement {
    private let statement: Statement

    init(_ db: Database, sql: String) throws {
        statement = try db.makeStatement(sql: sql)
    }

    /// Binds the values `bind` adds, in parameter order, and runs the statement to completion.
    func execute(_ bind: (inout Bindings) -> Void) throws {
        _ = try rows(bind) { _ in () }
    }

    /// Binds the values `bind` adds, runs the statement and reads each row it gives with `read`.
    func rows<Row>(_ bind: (inout Bindings) -> Void, read: (SQLiteStatement) -> Row) throws -> [Row] {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var bindings = Bindings(handle: handle)
        bind(&bindings)
        var rows: [Row] = []
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW:
                rows.append(read(handle))
            case SQLITE_DONE:
                return rows
            case let code:
                let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
            }
        }
    }

    struct Bindings {
        let handle: SQLiteStatement
        private var index: Int32 = 1

        init(handle: SQLiteStatement) {
            self.handle = handle
        }

        mutating func add(_ text: String?) {
            if var text {
                // SQLite copies the bytes (SQLITE_TRANSIENT) into the parameter's own buffer, which it keeps between
                // rows. The bytes are lent in place: passing the string as a C string made a copy of its own for
                // every value, a tenth of the writer's time in an import.
                let (handle, index) = (handle, index)
                text.withUTF8 { bytes in
                    // An empty value has no bytes to point at, and a null pointer would bind NULL.
                    guard let start = bytes.baseAddress, !bytes.isEmpty else {
                        _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
                        return
                    }
                    _ = start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_bind_text(handle, index, $0, Int32(bytes.count), Self.transient)
                    }
                }
            } else {
                sqlite3_bind_null(handle, index)
            }
            index += 1
        }

        mutating func add(_ integer: Int64?) {
            if let integer {
                sqlite3_bind_int64(handle, index, integer)
            } else {
                sqlite3_bind_null(handle, index)
            }
            index += 1
        }

        mutating func add(_ integer: Int?) {
            add(integer.map(Int64.init))
        }

        /// Binds a value of any storage class (a filter's argument).
        mutating func add(_ value: DatabaseValue) {
            switch value.storage {
            case .null: add(nil as Int64?)
            case .int64(let integer): add(integer)
            case .string(let text): add(text)
            case .double(let number):
                sqlite3_bind_double(handle, index, number)
                index += 1
            case .blob(let data):
                _ = data.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
                index += 1
            }
        }

        private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    }
}
