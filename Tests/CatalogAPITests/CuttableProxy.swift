import NIOCore
import NIOPosix
import PostgresStore
import Synchronization

/// A loopback TCP proxy to a server, which `cut()` turns into a server that has gone away: every connection through it
/// is closed, as a server that stops closes its sessions, and its port refuses new ones. `freeze()` turns it into a
/// network that has broken without a word: every connection stays open, and nothing more goes through.
final class CuttableProxy: Sendable {
    let port: Int
    private let listener: any Channel
    private let connections: Connections

    private init(port: Int, listener: any Channel, connections: Connections) {
        self.port = port
        self.listener = listener
        self.connections = connections
    }

    /// Listens on a loopback port (`listeningOn`, any free one when 0) and passes each connection on to `host`:`port`.
    static func start(to host: String, port upstreamPort: Int, listeningOn: Int = 0) async throws -> CuttableProxy {
        let connections = Connections()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            // A proxy started again on the port of one that was cut binds it while its closed connections linger.
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Nothing is read from a client until its server is connected: its first bytes have somewhere to go.
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop).connect(host: host, port: upstreamPort).flatMapThrowing { outbound in
                    // Both channels share the client's event loop.
                    try inbound.pipeline.syncOperations.addHandler(Forwarder(to: outbound, connections: connections))
                    try outbound.pipeline.syncOperations.addHandler(Forwarder(to: inbound, connections: connections))
                    connections.add(inbound, outbound)
                    inbound.setOption(.autoRead, value: true).whenComplete { _ in }
                }
            }
            .bind(host: "127.0.0.1", port: listeningOn).get()
        guard let port = listener.localAddress?.port else { throw ChannelError.unknownLocalAddress }
        return CuttableProxy(port: port, listener: listener, connections: connections)
    }

    /// A proxy to `database`, and where a store reaches the database through it.
    static func start(to database: PostgresLocation) async throws -> (proxy: CuttableProxy, location: PostgresLocation) {
        let proxy = try await start(to: database.host, port: database.port)
        var location = database
        location.host = "127.0.0.1"
        location.port = proxy.port
        return (proxy, location)
    }

    /// Stops listening and closes every connection through the proxy.
    func cut() async {
        try? await listener.close()
        for channel in connections.cut() { try? await channel.close() }
    }

    /// Drops every byte from now on, closing nothing: a peer on either side hears nothing more.
    func freeze() {
        connections.frozen.store(true, ordering: .relaxed)
    }

    /// The channels of every connection through the proxy; one added after the cut is closed at once.
    private final class Connections: Sendable {
        private let state = Mutex<(channels: [any Channel], isCut: Bool)>(([], false))
        let frozen = Atomic(false)

        func add(_ channels: (any Channel)...) {
            let isCut = state.withLock { state in
                if !state.isCut { state.channels += channels }
                return state.isCut
            }
            if isCut { for channel in channels { channel.close(promise: nil) } }
        }

        func cut() -> [any Channel] {
            state.withLock { state in
                state.isCut = true
                return state.channels
            }
        }
    }

    /// Writes what one side reads to the other, and closes the other with it.
    private final class Forwarder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let partner: any Channel
        private let connections: Connections

        init(to partner: any Channel, connections: Connections) {
            self.partner = partner
            self.connections = connections
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !connections.frozen.load(ordering: .relaxed) else { return }
            partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner.close(promise: nil)
            context.fireChannelInactive()
        }
    }
}
