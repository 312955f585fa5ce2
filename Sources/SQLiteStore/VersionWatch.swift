import CatalogStore
import GRDB
import Synchronization

/// Answers "what are the store's versions now?" in microseconds, without waiting for a pooled reader.
///
/// Every GET asks this before anything else (for its ETag and the response cache), so it has to cost
/// next to nothing. A dedicated read-only connection, used directly under a lock (no dispatch queue), tells
/// whether any connection, in this process or another, has committed since the last look: from the header of
/// the file's shared WAL index (`WALIndexStamp`), read from memory, or, for a file without one,
/// `PRAGMA data_version`. Only then are the versions read again.
final class VersionWatch: Sendable {
    private enum CommitStamp: Equatable {
        case walIndex(WALIndexStamp)
        case dataVersion(Int64)
    }

    private struct Watch {
        let reader: DirectReader
        /// The shared WAL index, mapped while `reader` is open.
        let walIndex: UnsafeRawPointer?
        var cached: (stamp: CommitStamp, versions: StoreVersions)?

        func stamp() throws -> CommitStamp {
            if let walIndex { return .walIndex(WALIndexStamp(walIndex)) }
            guard let version = try reader.integer("PRAGMA data_version") else {
                throw VersionWatchError(message: "PRAGMA data_version gave no value")
            }
            return .dataVersion(version)
        }
    }

    /// Nil once closed.
    private let watch: Mutex<Watch?>

    init(path: String) throws {
        // The watch reads the WAL index's header in memory, without SQL and without a lock. Only a file without one
        // (not in WAL mode) asks `PRAGMA data_version`, which may wait for a writer's lock: up to 5 s, as GRDB's
        // readers do. A file busy beyond that still opens: its commits are then told by `data_version`.
        let reader = try DirectReader(path: path, busyTimeout: .seconds(5))
        watch = Mutex(Watch(reader: reader, walIndex: (try? reader.walIndex()) ?? nil))
    }

    func current() throws -> StoreVersions {
        try watch.withLock { watch in
            guard var open = watch else { throw VersionWatchError(message: "the store is closed") }
            // Taken before the versions are read: a commit in between only makes the next call read again.
            let stamp = try open.stamp()
            if let cached = open.cached, cached.stamp == stamp { return cached.versions }
            let versions = try StoreVersions.fetch(open.reader)
            open.cached = (stamp, versions)
            watch = open
            return versions
        }
    }

    /// Whether commits are told from the shared WAL index (false for a file without one, or once closed).
    var readsWALIndex: Bool { watch.withLock { $0?.walIndex != nil } }

    func close() {
        watch.withLock { $0 = nil }
    }
}

struct VersionWatchError: Error, CustomStringConvertible {
    let message: String
    var description: String { "store version check failed: \(message)" }
}
