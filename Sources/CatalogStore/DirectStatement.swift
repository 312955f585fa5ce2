import GRDB
import GRDBSQLite

/// A prepared statement for the import's hot path, run with values bound straight into SQLite.
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
        let handle = statement.sqliteStatement
        var bindings = Bindings(handle: handle)
        bind(&bindings)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        sqlite3_reset(handle)
    }

    struct Bindings {
        let handle: SQLiteStatement
        private var index: Int32 = 1

        init(handle: SQLiteStatement) {
            self.handle = handle
        }

        mutating func add(_ text: String?) {
            if let text {
                // SQLite copies the bytes (SQLITE_TRANSIENT): the C string lives only for this call.
                sqlite3_bind_text(handle, index, text, Int32(text.utf8.count), Self.transient)
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

        private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    }
}
