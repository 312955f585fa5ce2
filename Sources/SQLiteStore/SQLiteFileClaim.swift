import CatalogStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on a lock file: held by one open file at a time, across processes, and let go by the
/// kernel when the process holding it ends however it ends.
final class SQLiteFileClaim: StoreClaim {
    private let descriptor: Mutex<Int32?>

    /// Takes the lock, or nil when another open file holds it.
    init?(path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SQLiteFileClaimError(path: path, code: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = Mutex(descriptor)
    }

    var isHeld: Bool { descriptor.withLock { $0 != nil } }

    func release() async {
        descriptor.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }

    deinit {
        descriptor.withLock { descriptor in
            if let open = descriptor { close(open) }
        }
    }
}

struct SQLiteFileClaimError: Error, CustomStringConvertible {
    let path: String
    let code: Int32
    var description: String { "cannot open the lock file \(path): \(String(cString: strerror(code)))" }
}
