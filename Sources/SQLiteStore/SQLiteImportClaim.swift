import CatalogStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on a lock file: held by one open file at a time, across processes, and let go by the
/// kernel when the process holding it ends however it ends.
final class SQLiteImportClaim: ImportClaim {
    private let descriptor: Mutex<Int32?>

    /// Takes the lock, or nil when another open file holds it.
    init?(path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SQLiteImportClaimError(path: path, code: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = Mutex(descriptor)
    }

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

struct SQLiteImportClaimError: Error, CustomStringConvertible {
    let path: String
    let code: Int32
    var description: String { "cannot open the import lock \(path): \(String(cString: strerror(code)))" }
}
