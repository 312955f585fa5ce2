import NIOCore
import Synchronization

/// Counts the TCP connections the fake upstream accepted, and how many are still open, so that a test can see
/// whether a client reuses its connections or opens one per request.
public final class FixtureConnectionCounter: Sendable {
    private let counts = Mutex<(accepted: Int, open: Int)>((0, 0))

    public init() {}

    /// Connections accepted since the counter was made or last reset.
    public var accepted: Int { counts.withLock { $0.accepted } }
    /// Connections accepted and not yet closed.
    public var open: Int { counts.withLock { $0.open } }

    /// Starts counting afresh; connections already open stay open and are still counted as they close.
    public func resetAccepted() {
        counts.withLock { $0.accepted = 0 }
    }

    /// The handler for one connection's pipeline: the server adds a new one to each connection it accepts,
    /// and the pipeline removes it when the connection closes.
    func handler() -> any RemovableChannelHandler {
        Handler(counter: self)
    }

    private func opened() {
        counts.withLock {
            $0.accepted += 1
            $0.open += 1
        }
    }

    private func closed() {
        counts.withLock { $0.open -= 1 }
    }

    /// Passes every event on untouched (NIO wants a handler to be inbound or outbound); it only notes its own
    /// arrival and departure.
    private final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny
        let counter: FixtureConnectionCounter

        init(counter: FixtureConnectionCounter) {
            self.counter = counter
        }

        func handlerAdded(context: ChannelHandlerContext) {
            counter.opened()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            counter.closed()
        }
    }
}
