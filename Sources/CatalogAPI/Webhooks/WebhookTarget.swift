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
        case unresolvable(host: String, reason: String)
        case privateAddress(host: String, address: String)

        var description: String {
            switch self {
            case .notHTTP(let scheme): "a webhook's url must be http or https, not '\(scheme)'"
            case .noHost: "a webhook's url needs a host, as in https://example.com/hook"
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

    init(_ url: String) throws(Refusal) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else { throw .notHTTP("") }
        guard scheme == "http" || scheme == "https" else { throw .notHTTP(scheme) }
        guard var host = components.host, !host.isEmpty else { throw .noHost }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.url = url
        self.host = host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    /// The address a delivery connects to: the host's first, resolved now, refused when it is not public (unless
    /// `allowsPrivate`).
    func resolve(allowsPrivate: Bool) async throws(Refusal) -> SocketAddress {
        let host = host
        let port = port
        let address: SocketAddress
        do {
            // getaddrinfo blocks: it runs on NIO's thread pool, not on a task's thread.
            address = try await NIOThreadPool.singleton.runIfActive { try SocketAddress.makeAddressResolvingHost(host, port: port) }
        } catch {
            throw .unresolvable(host: host, reason: "\(error)")
        }
        if !allowsPrivate, !Self.isPublic(address) { throw .privateAddress(host: host, address: address.ipAddress ?? "\(address)") }
        return address
    }

    /// Whether an address is one a webhook may reach from outside: not unspecified, loopback, link-local (cloud metadata
    /// services' 169.254.169.254 among them), private (RFC 1918, and the carrier-grade 100.64.0.0/10), unique-local
    /// (fc00::/7), multicast, nor an IPv4 address of those kinds mapped into IPv6.
    static func isPublic(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            return isPublic(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return isPublic(ipv4: bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) })
            }
            if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] <= 1 { return false }  // :: and ::1
            if bytes[0] & 0xFE == 0xFC { return false }  // fc00::/7
            if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return false }  // fe80::/10
            if bytes[0] == 0xFF { return false }  // multicast
            return true
        case .unixDomainSocket:
            return false
        }
    }

    private static func isPublic(ipv4 address: UInt32) -> Bool {
        let refused: [(network: UInt32, prefix: UInt32)] = [
            (0x0000_0000, 8), (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16), (0xAC10_0000, 12),
            (0xC0A8_0000, 16), (0xE000_0000, 4), (0xFFFF_FFFF, 32),
        ]
        return !refused.contains { address >> (32 - $0.prefix) == $0.network >> (32 - $0.prefix) }
    }
}
