import GRDB
import GRDBSQLite

/// A read-only connection of its own, used on the calling thread: for reads an index answers in microseconds (a
/// page of products), where GRDB's hop to a reader's queue and back costs an order of magnitude more CPU than the
/// read itself.
///
/// One thread uses it at a time: `DirectReaders` lends each to one read, and `VersionWatch` uses its own under a
/// lock; that is what makes it safe to send between threads.
final class DirectReader: SQLiteReading, @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    /// How long a reader lent to a server's thread waits for a file another connection has locked (a checkpoint
    /// that restarts the log, an exclusive lock): a moment, then the read goes elsewhere (`DirectReaders`).
    static let busyTimeout: Duration = .milliseconds(50)

    /// Opens a read-only connection that waits at most `busyTimeout` for a lock.
    init(path: String, busyTimeout: Duration) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "cannot open \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, Int32(busyTimeout / .milliseconds(1)))
        self.handle = handle
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs `body` in one read transaction, so that its statements see one state of the file.
    func transaction<Result>(_ body: (DirectReader) throws -> Result) throws -> Result {
        try execute("BEGIN DEFERRED")
        do {
            let result = try body(self)
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The first page of the file's shared WAL index, as SQLite maps it for this connection, or nil when the file
    /// has none (a database not in WAL mode). It stays mapped while the connection is open.
    func walIndex() throws -> UnsafeRawPointer? {
        // Asking the journal mode reads the file, which maps its index for the connection when it has one.
        var isWAL = false
        try forEachRow("PRAGMA journal_mode", []) { _, statement in
            isWAL = sqlite3_column_text(statement, 0).map { String(cString: $0) } == "wal"
            return false
        }
        guard isWAL else { return nil }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK, let methods = file?.pointee.pMethods,
            methods.pointee.iVersion >= 2, let map = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        guard map(file, 0, WALIndexStamp.regionSize, 0, &region) == SQLITE_OK, let region else { return nil }
        return UnsafeRawPointer(region)
    }

    /// Whether no transaction is open: a reader goes back to the pool only then.
    var isOutsideTransaction: Bool { sqlite3_get_autocommit(handle) != 0 }

    func forEachRow(_ sql: String, _ arguments: [DatabaseValue], _ body: ((), SQLiteStatement) throws -> Bool) throws {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        guard sqlite3_bind_parameter_count(statement) == arguments.count else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "\(arguments.count) arguments for \(sqlite3_bind_parameter_count(statement)) parameters",
                sql: sql)
        }
        var bindings = DirectStatement.Bindings(handle: statement)
        for argument in arguments { bindings.add(argument) }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                guard try body((), statement) else { return }
            case SQLITE_DONE:
                return
            case let code:
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
            }
        }
    }

    private func execute(_ sql: String) throws {
        try forEachRow(sql, []) { _, _ in false }
    }

    /// The statement for `sql`, prepared the first time it is asked for. SQLite prepares it again by itself
    /// when the schema changes.
    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw DatabaseError(resultCode: ResultCode(rawValue: sqlite3_errcode(handle)), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        statements[sql] = statement
        return statement
    }
}
