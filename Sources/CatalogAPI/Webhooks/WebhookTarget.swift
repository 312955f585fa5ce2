import Foundation
import NIOCore
import NIOPosix

/// A webhook's URL, read and checked: http or https, with a host. Before a subscription is made, and again before each
/// delivery, its host is resolved and the address checked (`resolve`); the delivery then connects to exactly that
/// address, so that a name that resolves elsewhere the second time (DNS rebinding) cannot lead it to a private one.
struct WebhookTarget: Sendable {
    /// Why a URL cannot be a webhook's; its description is the problem's detail.
    enum Refusal: Error, CustomStringConvertible {
        case notHTTP(String)
        case noHost
        case badPort(Int)
        case unresolvable(host: String, reason: String)
        case privateAddress(host: String, address: String)

        var description: String {
            switch self {
            case .notHTTP(let scheme): "a webhook's url must be http or https, not '\(scheme)'"
            case .noHost: "a webhook's url needs a host, as in https://example.com/hook"
            case .badPort(let port): "a webhook's url needs a port from 1 to 65535, not \(port)"
            case .unresolvable(let host, let reason): "the host \(host) cannot be resolved: \(reason)"
            case .privateAddress(let host, let address):
                """
                \(host) resolves to \(address), a loopback, link-local, private or unique-local address; webhooks go to public \
                addresses unless the service runs with --webhook-allow-private
                """
            }
        }
    }

    let url: String
    /// The host as the URL names it, without the brackets of an IPv6 address.
    let host: String
    let port: Int

    /// The URL read as the HTTP client reads it (`URL`, whose host is the ASCII form of an internationalised name, as
    /// it is resolved), so that the host checked is the host connected to.
    init(_ url: String) throws(Refusal) {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased() else { throw .notHTTP("") }
        guard scheme == "http" || scheme == "https" else { throw .notHTTP(scheme) }
        guard var host = parsed.host, !host.isEmpty else { throw .noHost }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = parsed.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { throw .badPort(port) }
        self.url = url
        self.host = host
        self.port = port
    }

    /// The address a delivery connects to: the host's first, resolved now, refused when it is not public (unless
    /// `allowsPrivate`), or when no answer came within `timeout`.
    func resolve(allowsPrivate: Bool, within timeout: Duration) async throws(Refusal) -> SocketAddress {
        let host = host
        let port = port
        let address: SocketAddress
        do {
            // getaddrinfo blocks, on NIO's thread pool rather than a task's thread, and cannot be stopped: past the
            // timeout it is left to finish there.
            address = try await Deadline.run(
                within: timeout, orThrow: { Refusal.unresolvable(host: host, reason: "no answer within \(timeout)") }
            ) {
                try await NIOThreadPool.singleton.runIfActive { try SocketAddress.makeAddressResolvingHost(host, port: port) }
            }
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw .unresolvable(host: host, reason: "\(error)")
        }
        if !allowsPrivate, !Self.isPublic(address) { throw .privateAddress(host: host, address: address.ipAddress ?? "\(address)") }
        return address
    }

    /// Whether an address is one a webhook may reach from outside. Refused: unspecified, loopback, link-local (cloud
    /// metadata services' 169.254.169.254 among them), private (RFC 1918, the carrier-grade 100.64.0.0/10), the IETF's
    /// and benchmarking blocks (192.0.0.0/24, 198.18.0.0/15), multicast and reserved (224.0.0.0/3), unique-local
    /// (fc00::/7), site-local (fec0::/10); and an IPv6 address that carries an IPv4 address (mapped, compatible, NAT64's
    /// 64:ff9b::/96, 6to4's 2002::/16) when that address is refused.
    static func isPublic(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            return isPublic(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            return isPublic(ipv6: withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) })
        case .unixDomainSocket:
            return false
        }
    }

    static func isPublic(ipv6 bytes: [UInt8]) -> Bool {
        func ipv4(at start: Int) -> UInt32 { bytes[start..<start + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        let zeroes = bytes.prefix(10).allSatisfy { $0 == 0 }
        if zeroes, bytes[10] == 0xFF, bytes[11] == 0xFF { return isPublic(ipv4: ipv4(at: 12)) }  // ::ffff:a.b.c.d
        if zeroes, bytes[10] == 0, bytes[11] == 0 { return isPublic(ipv4: ipv4(at: 12)) }  // ::a.b.c.d, :: and ::1 among them
        if bytes.prefix(12) == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return isPublic(ipv4: ipv4(at: 12)) }  // 64:ff9b::/96
        if bytes[0] == 0x20, bytes[1] == 0x02 { return isPublic(ipv4: ipv4(at: 2)) }  // 2002::/16
        if bytes[0] & 0xFE == 0xFC { return false }  // fc00::/7
        if bytes[0] == 0xFE, bytes[1] & 0x80 == 0x80 { return false }  // fe80::/10 and fec0::/10
        return bytes[0] != 0xFF  // multicast
    }

    static func isPublic(ipv4 address: UInt32) -> Bool {
        let refused: [(network: UInt32, prefix: UInt32)] = [
            (0x0000_0000, 8), (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16), (0xAC10_0000, 12),
            (0xC000_0000, 24), (0xC0A8_0000, 16), (0xC612_0000, 15), (0xE000_0000, 3),
        ]
        return !refused.contains { address >> (32 - $0.prefix) == $0.network >> (32 - $0.prefix) }
    }
}
