import NIOCore
import Synchronization

/// Encoded GET responses of unchanged data, ready to send again.
///
/// Entries are keyed by the entity tag, which hashes the resource family's store version with the URL and
/// base URL: a write moves the version, so a stale entry is never found again and simply ages out.
/// The cache holds at most `byteBudget` bytes of bodies and drops the oldest entries first.
final class ResponseCache: Sendable {
    static let defaultByteBudget = 64 * 1024 * 1024

    private struct State {
        var bodies: [String: ByteBuffer] = [:]
        var order: [String] = []
        var bytes = 0
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

    func store(_ body: ByteBuffer, for tag: String) {
        guard body.readableBytes <= byteBudget / 4 else { return }
        state.withLock { state in
            guard state.bodies.updateValue(body, forKey: tag) == nil else { return }
            state.order.append(tag)
            state.bytes += body.readableBytes
            var evicted = 0
            while state.bytes > byteBudget, evicted < state.order.count {
                if let old = state.bodies.removeValue(forKey: state.order[evicted]) { state.bytes -= old.readableBytes }
                evicted += 1
            }
            state.order.removeFirst(evicted)
        }
    }
}
