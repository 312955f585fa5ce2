import GRDB
import Synchronization

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
            // A reader left inside a transaction (its rollback failed) would fail every read after: it is closed.
            if reader.isOutsideTransaction {
                idle.withLock { idle in
                    if let count = idle?.count, count < Self.keptIdle { idle?.append(reader) }
                }
            }
        }
        return try reader.transaction(body)
    }

    /// Closes the idle readers; a read still running closes its own when it ends.
    func close() {
        idle.withLock { $0 = nil }
    }
}
