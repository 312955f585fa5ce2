import GRDB
import GRDBSQLite
import Synchronization

/// A read-only connection of its own, used on the calling thread: for reads an index answers in microseconds (a
/// page of products), where GRDB's hop to a reader's queue and back cost more than the read (0.065 ms of CPU per
/// request, against 0.007 for the same statements run here).
///
/// One thread uses it at a time: `DirectReaders` lends each to one read.
final class DirectReader: SQLiteReading, @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    init(path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "cannot open \(path): \(message)")
        }
        // A writer in another process may hold the file's lock for a moment while it checkpoints.
        sqlite3_busy_timeout(handle, 5000)
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

    func forEachRow(_ sql: String, _ arguments: [DatabaseValue], _ body: ((), SQLiteStatement) throws -> Bool) throws {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
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

/// The store's `DirectReader`s: each read takes an idle one or opens another, and gives it back after.
final class DirectReaders: Sendable {
    private let path: String
    /// Nil once the store is closed.
    private let idle: Mutex<[DirectReader]?> = Mutex([])
    /// How many idle readers are kept open; more are opened while more threads read at once, and closed after.
    static let keptIdle = 8

    init(path: String) {
        self.path = path
    }

    /// Runs `body` in one read transaction of a reader.
    func read<Result>(_ body: (DirectReader) throws -> Result) throws -> Result {
        let taken = try idle.withLock { idle -> DirectReader? in
            guard idle != nil else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the store is closed") }
            return idle?.popLast()
        }
        let reader = try taken ?? DirectReader(path: path)
        defer {
            idle.withLock { idle in
                if let count = idle?.count, count < Self.keptIdle { idle?.append(reader) }
            }
        }
        return try reader.transaction(body)
    }

    /// Closes the idle readers; a read still running closes its own when it ends.
    func close() {
        idle.withLock { $0 = nil }
    }
}
