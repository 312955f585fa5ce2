import GRDB
import Synchronization

/// The store's `DirectReader`s, lent to reads run on the calling thread: a thread the server answers on. Such a
/// thread must never wait, so a read gets no reader rather than waiting for one: at most `limit` are open at once,
/// and a reader whose file is locked (`DirectReader.busyTimeout`) gives up at once. Either way `read` answers nil,
/// and the caller reads through GRDB's pool instead, whose own threads are the ones that may wait (for a lock, up
/// to GRDB's busy timeout).
final class DirectReaders: Sendable {
    private struct State {
        var idle: [DirectReader] = []
        /// Readers open, idle or lent.
        var open = 0
    }

    private let path: String
    /// Nil once the store is closed.
    private let state: Mutex<State?> = Mutex(State())
    /// The most readers open at once.
    let limit: Int
    static let defaultLimit = 8

    init(path: String, limit: Int = defaultLimit) {
        self.path = path
        self.limit = limit
    }

    private enum Lending {
        case idle(DirectReader)
        case new
        case none
    }

    /// Runs `body` in one read transaction of a reader; nil when every reader is lent or the file is locked, for the
    /// caller to read elsewhere.
    func read<Result>(_ body: (DirectReader) throws -> Result) throws -> Result? {
        let lending = try state.withLock { state -> Lending in
            guard state != nil else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the store is closed") }
            if let reader = state?.idle.popLast() { return .idle(reader) }
            guard let open = state?.open, open < limit else { return .none }
            state?.open += 1
            return .new
        }
        let reader: DirectReader
        switch lending {
        case .idle(let idle): reader = idle
        case .none: return nil
        case .new:
            do {
                reader = try DirectReader(path: path, busyTimeout: DirectReader.busyTimeout)
            } catch {
                state.withLock { $0?.open -= 1 }
                throw error
            }
        }
        defer {
            // A reader left inside a transaction (its rollback failed) would fail every read after: it is closed.
            let kept = reader.isOutsideTransaction
            state.withLock { state in
                if kept, state != nil { state?.idle.append(reader) } else { state?.open -= 1 }
            }
        }
        do {
            return try reader.transaction(body)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            return nil
        }
    }

    /// Closes the idle readers; a read still running closes its own when it ends.
    func close() {
        state.withLock { $0 = nil }
    }
}
