import NIOCore
import NIOPosix

/// A client on a plain loopback TCP connection: it writes bytes exactly as given, as a careless HTTP client
/// would, and reads whatever comes back.
enum RawConnection {
    /// What one exchange saw: the bytes read, and whether writing the request failed part-way.
    struct Exchange: Sendable {
        var received = ""
        var writeFailed = false
    }

    /// Writes `request` whole, then reads until the server closes, `stop` says enough, or `deadline` passes.
    static func exchange(
        port: Int, request: [UInt8], deadline: Duration = .seconds(10), stop: @escaping @Sendable (String) -> Bool = { _ in false }
    ) async throws -> Exchange {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        // Closing the channel ends the read below, whatever the server does.
        let timer = Task {
            try await Task.sleep(for: deadline)
            try await channel.channel.close()
        }
        defer { timer.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            var exchange = Exchange()
            do {
                try await outbound.write(ByteBuffer(bytes: request))
            } catch {
                exchange.writeFailed = true
            }
            do {
                for try await chunk in inbound {
                    exchange.received += String(buffer: chunk)
                    if stop(exchange.received) { break }
                }
            } catch {
                // A reset after the answer was read still leaves the answer to inspect.
            }
            return exchange
        }
    }

    /// An HTTP/1.1 request as bytes.
    static func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "PUT" || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }
}
