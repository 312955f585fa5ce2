import CatalogStore
import GRDBSQLite
import Synchronization

/// Answers "what are the store's versions now?" in microseconds, without waiting for a pooled reader.
///
/// Every GET asks this before anything else (for its ETag and the response cache), so it has to cost
/// next to nothing. A dedicated read-only SQLite connection, used directly under a lock (no dispatch
/// queue), asks `PRAGMA data_version`, which changes whenever any other connection, in this process or
/// another, has committed; only then are the versions read again.
final class VersionWatch: Sendable {
    private struct Connection {
        let handle: OpaquePointer
        let dataVersion: OpaquePointer
        let versions: OpaquePointer
        var cached: (dataVersion: Int64, versions: StoreVersions)?
    }

    private let connection: Mutex<Connection?>

    init(path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw VersionWatchError(message: "cannot open \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, 5000)
        do {
            let dataVersion = try Self.prepare(handle, "PRAGMA data_version")
            let versions = try Self.prepare(handle, StoreVersions.selectSQL)
            connection = Mutex(Connection(handle: handle, dataVersion: dataVersion, versions: versions))
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
    }

    deinit {
        close()
    }

    func current() throws -> StoreVersions {
        try connection.withLock { connection in
            guard var open = connection else { throw VersionWatchError(message: "the store is closed") }
            let dataVersion = try Self.step(open.dataVersion, open.handle) { sqlite3_column_int64($0, 0) }
            if let cached = open.cached, cached.dataVersion == dataVersion { return cached.versions }
            // A commit between the two statements only makes the next call read again.
            let versions = try Self.step(open.versions, open.handle, read: StoreVersions.init)
            open.cached = (dataVersion, versions)
            connection = open
            return versions
        }
    }

    func close() {
        connection.withLock { connection in
            guard let open = connection else { return }
            sqlite3_finalize(open.dataVersion)
            sqlite3_finalize(open.versions)
            sqlite3_close_v2(open.handle)
            connection = nil
        }
    }

    private static func prepare(_ handle: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw VersionWatchError(message: String(cString: sqlite3_errmsg(handle)))
        }
        return statement
    }

    /// Runs a one-row statement and reads its row.
    private static func step<Value>(_ statement: OpaquePointer, _ handle: OpaquePointer, read: (OpaquePointer) -> Value) throws -> Value {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else {
            throw VersionWatchError(message: String(cString: sqlite3_errmsg(handle)))
        }
        return read(statement)
    }
}

struct VersionWatchError: Error, CustomStringConvertible {
    let message: String
    var description: String { "store version check failed: \(message)" }
}
