import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// A client that does what `urllib` and many HTTP/1.1 libraries do: a blocking send of the whole request,
/// body included, and only then a read. A server that stops reading before the body ends blocks its send.
enum BlockingClient {
    /// Sends `request` whole and reads until the server closes; each blocking call gives up after `timeout` seconds.
    static func sendWholeThenRead(port: Int, request: [UInt8], timeout: Int = 10) async -> RawConnection.Exchange {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: exchange(port: port, request: request, timeout: timeout))
            }
        }
    }

    private static func exchange(port: Int, request: [UInt8], timeout: Int) -> RawConnection.Exchange {
        var result = RawConnection.Exchange()
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else {
            result.writeFailed = true
            return result
        }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            result.writeFailed = true
            return result
        }
        var sent = 0
        while sent < request.count {
            let written = request[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else {
                result.writeFailed = true
                break
            }
            sent += written
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var received: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        result.received = String(decoding: received, as: UTF8.self)
        return result
    }
}
