import NIOCore
import Synchronization

/// Encoded GET responses of unchanged data, ready to send again.
///
/// Entries are keyed by the entity tag, which hashes the resource family's store version with the URL and
/// base URL: a write moves the version, so a stale entry is never found again. Entries of a family's older
/// versions are dropped as soon as a newer version is stored, so memory follows the live data rather than
/// the write rate; beyond that the cache holds at most `byteBudget` bytes and drops the oldest entries first.
final class ResponseCache: Sendable {
    static let defaultByteBudget = 32 * 1024 * 1024

    private struct Entry {
        let tag: String
        let family: String
        let version: Int64
    }

    private struct State {
        var bodies: [String: ByteBuffer] = [:]
        var order: [Entry] = []
        var bytes = 0
        var newestVersion: [String: Int64] = [:]

        mutating func remove(where isStale: (Entry) -> Bool) {
            order.removeAll { entry in
                guard isStale(entry) else { return false }
                if let old = bodies.removeValue(forKey: entry.tag) { bytes -= old.readableBytes }
                return true
            }
        }
    }

    private let state = Mutex(State())
    let byteBudget: Int

    init(byteBudget: Int = defaultByteBudget) {
        self.byteBudget = byteBudget
    }

    /// The body ready to send: a buffer shares its storage, so handing it out copies nothing.
    func body(for tag: String) -> ByteBuffer? {
        state.withLock { $0.bodies[tag] }
    }

    func store(_ body: ByteBuffer, for tag: String, family: String, version: Int64) {
        guard body.readableBytes <= byteBudget / 4 else { return }
        state.withLock { state in
            let newest = state.newestVersion[family, default: .min]
            // A render that read an older version than one already stored is stale on arrival.
            guard version >= newest else { return }
            if version > newest {
                state.newestVersion[family] = version
                state.remove { $0.family == family && $0.version < version }
            }
            guard state.bodies.updateValue(body, forKey: tag) == nil else { return }
            state.order.append(Entry(tag: tag, family: family, version: version))
            state.bytes += body.readableBytes
            var evicted = 0
            while state.bytes > byteBudget, evicted < state.order.count {
                if let old = state.bodies.removeValue(forKey: state.order[evicted].tag) { state.bytes -= old.readableBytes }
                evicted += 1
            }
            state.order.removeFirst(evicted)
        }
    }
}
