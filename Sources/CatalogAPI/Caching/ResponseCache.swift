import NIOCore
import Synchronization

/// Encoded GET responses of unchanged data, ready to send again.
///
/// Entries are keyed by the entity tag, which names the resource family's store version beside a hash of the URL
/// and base URL: a write moves the version, so a stale entry is never found again. Entries of a family's older
/// versions are dropped as soon as a newer version is stored, so memory follows the live data rather than
/// the write rate; beyond that the cache holds at most `byteBudget` bytes and drops the oldest entries first.
/// An entry keeps the gzip form of its body beside the plain one, made the first time a gzip client asks,
/// so a page is compressed once per version rather than once per request. The cache also tells whether it holds
/// any version of a response (its subject, `EntityTag.Subject`'s hash): one it does not hold (never kept, evicted,
/// or dropped for a newer version of its family) is read without first asking the store for the current version.
final class ResponseCache: Sendable {
    static let defaultByteBudget = 32 * 1024 * 1024

    private struct Entry {
        let tag: String
        let subject: UInt64
        let family: String
        let version: Int64
    }

    private struct Bodies {
        let plain: ByteBuffer
        var gzip: ByteBuffer?

        var bytes: Int { plain.readableBytes + (gzip?.readableBytes ?? 0) }
    }

    private struct State {
        var bodies: [String: Bodies] = [:]
        var order: [Entry] = []
        var bytes = 0
        var newestVersion: [String: Int64] = [:]
        /// How many entries each subject has.
        var subjects: [UInt64: Int] = [:]

        mutating func remove(where isStale: (Entry) -> Bool) {
            var stale: [Entry] = []
            order.removeAll { entry in
                guard isStale(entry) else { return false }
                stale.append(entry)
                return true
            }
            for entry in stale { forget(entry) }
        }

        /// Drops the oldest entries until the bytes held fit `budget`.
        mutating func evict(toFit budget: Int) {
            var evicted = 0
            while bytes > budget, evicted < order.count {
                forget(order[evicted])
                evicted += 1
            }
            order.removeFirst(evicted)
        }

        private mutating func forget(_ entry: Entry) {
            if let old = bodies.removeValue(forKey: entry.tag) { bytes -= old.bytes }
            if let count = subjects[entry.subject] { subjects[entry.subject] = count > 1 ? count - 1 : nil }
        }
    }

    private let state = Mutex(State())
    let byteBudget: Int

    init(byteBudget: Int = defaultByteBudget) {
        self.byteBudget = byteBudget
    }

    /// The body ready to send: a buffer shares its storage, so handing it out copies nothing.
    func body(for tag: String) -> ByteBuffer? {
        state.withLock { $0.bodies[tag]?.plain }
    }

    /// The gzip form of `plain`, the body of `tag`: the one kept beside it when there is one, else made by
    /// `compress` and kept for the next client while the plain body is still cached.
    ///
    /// Compression runs outside the lock, so that one page being compressed never holds up every other read;
    /// two clients asking at the same instant may both compress, and the first result is kept.
    func gzipBody(for tag: String, plain: ByteBuffer, compress: (ByteBuffer) throws -> ByteBuffer) rethrows -> ByteBuffer {
        if let kept = state.withLock({ $0.bodies[tag]?.gzip }) { return kept }
        let compressed = try compress(plain)
        return state.withLock { state in
            guard var bodies = state.bodies[tag] else { return compressed }
            if let kept = bodies.gzip { return kept }
            bodies.gzip = compressed
            state.bodies[tag] = bodies
            state.bytes += compressed.readableBytes
            state.evict(toFit: byteBudget)
            return compressed
        }
    }

    /// Whether some version of the response of `subject` may be here: false when none is.
    func holds(subject: UInt64) -> Bool {
        state.withLock { $0.subjects[subject] != nil }
    }

    func store(_ body: ByteBuffer, for tag: String, subject: UInt64, family: String, version: Int64) {
        guard body.readableBytes <= byteBudget / 4 else { return }
        state.withLock { state in
            let newest = state.newestVersion[family, default: .min]
            // A render that read an older version than one already stored is stale on arrival.
            guard version >= newest else { return }
            if version > newest {
                state.newestVersion[family] = version
                state.remove { $0.family == family && $0.version < version }
            }
            guard state.bodies[tag] == nil else { return }
            state.bodies[tag] = Bodies(plain: body)
            state.order.append(Entry(tag: tag, subject: subject, family: family, version: version))
            state.subjects[subject, default: 0] += 1
            state.bytes += body.readableBytes
            state.evict(toFit: byteBudget)
        }
    }
}
