import NIOCore
import Synchronization

/// The connections the server has open, so that those still open when a stop's time is up can be closed.
///
/// Hummingbird's server stops by waiting for every connection to end; one whose client stopped reading would
/// otherwise hold the stop until the send timeout, or for ever were that off.
public final class OpenConnections: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    public init() {}

    /// How many connections are open now.
    public var count: Int { channels.withLock { $0.count } }

    /// A handler that keeps one connection in the set while it is open.
    func tracker() -> Tracker { Tracker(connections: self) }

    /// Closes every open connection; their handlers see their writes fail and end. Returns how many there were.
    @discardableResult
    public func closeAll() -> Int {
        let open = channels.withLock { Array($0.values) }
        for channel in open { channel.close(mode: .all, promise: nil) }
        return open.count
    }

    /// Keeps its channel in the set from the moment it is added to the pipeline until the channel closes.
    final class Tracker: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        private let connections: OpenConnections

        init(connections: OpenConnections) {
            self.connections = connections
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let channel = context.channel
            connections.channels.withLock { $0[ObjectIdentifier(channel)] = channel }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            let key = ObjectIdentifier(context.channel)
            connections.channels.withLock { _ = $0.removeValue(forKey: key) }
        }
    }
}
