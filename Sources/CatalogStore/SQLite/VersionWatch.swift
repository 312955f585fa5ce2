import CatalogStore
import GRDB
import Synchronization

/// Answers "what are the store's versions now?" in microseconds, without waiting for a pooled reader.
///
/// Every GET asks this before anything else (for its ETag and the response cache), so it has to cost
/// next to nothing. A dedicated read-only connection, used directly under a lock (no dispatch queue), asks
/// `PRAGMA data_version`, which changes whenever any other connection, in this process or another, has
/// committed; only then are the versions read again.
final class VersionWatch: Sendable {
    private struct Watch {
        let reader: DirectReader
        var cached: (dataVersion: Int64, versions: StoreVersions)?
    }

    /// Nil once closed.
    private let watch: Mutex<Watch?>

    init(path: String) throws {
        watch = Mutex(Watch(reader: try DirectReader(path: path)))
    }

    func current() throws -> StoreVersions {
        try watch.withLock { watch in
            guard var open = watch else { throw VersionWatchError(message: "the store is closed") }
            let dataVersion = try open.reader.integer("PRAGMA data_version")
            if let cached = open.cached, cached.dataVersion == dataVersion { return cached.versions }
            // A commit between the two statements only makes the next call read again.
            let versions = try StoreVersions.fetch(open.reader)
            open.cached = dataVersion.map { ($0, versions) }
            watch = open
            return versions
        }
    }

    func close() {
        watch.withLock { $0 = nil }
    }
}

struct VersionWatchError: Error, CustomStringConvertible {
    let message: String
    var description: String { "store version check failed: \(message)" }
}
