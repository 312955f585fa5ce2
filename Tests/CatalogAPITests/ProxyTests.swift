import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CatalogAPI

private let viaProxy: HTTPFields = [
    HTTPField.Name("X-Forwarded-Proto")!: "https", HTTPField.Name("X-Forwarded-Host")!: "catalog.example.com",
]

private func proxyHarness(trust: Bool, publicURL: String? = nil) -> WriteHarness {
    var harness = WriteHarness()
    harness.setup = .live
    harness.configuration.trustsProxy = trust
    harness.configuration.publicURL = publicURL
    return harness
}

/// The `url` of the first row and the `next` link of a products page asked with `headers`.
private func links(_ client: some TestClientProtocol, headers: HTTPFields) async throws -> (url: String?, next: String?) {
    let page = try json(try await get(client, "/products?page_size=2", headers: headers))
    return (string(array(page["results"]).first?["url"]), string(page["next"]))
}

@Suite("Behind a proxy")
struct ProxyTests {
    @Test func forwardedHeadersAreIgnoredUnlessTheProxyIsTrusted() async throws {
        try await proxyHarness(trust: false).run { client, components in
            try await seedCatalogue(components.store)
            let (url, next) = try await links(client, headers: viaProxy)
            #expect(url == "http://localhost/products/P000/")
            #expect(next?.hasPrefix("http://localhost/products?page_size=2&cursor=") == true)
            let forwarded = try await links(client, headers: [HTTPField.Name("Forwarded")!: "proto=https;host=catalog.example.com"])
            #expect(forwarded.url == "http://localhost/products/P000/")
        }
    }

    @Test func aTrustedProxyGivesLinksAndLocationItsSchemeAndHost() async throws {
        try await proxyHarness(trust: true).run { client, components in
            try await seedCatalogue(components.store)
            let (url, next) = try await links(client, headers: viaProxy)
            #expect(url == "https://catalog.example.com/products/P000/")
            #expect(next?.hasPrefix("https://catalog.example.com/products?page_size=2&cursor=") == true)
            var headers = authorized
            headers.append(contentsOf: viaProxy)
            let created = try await client.execute(
                uri: "/products/ZZ-NEW", method: .put, headers: headers, body: ByteBuffer(string: #"{"name": "Lamp", "category": "c1", "price": 2}"#))
            #expect(created.status == .created)
            #expect(created.headers[.location] == "https://catalog.example.com/products/ZZ-NEW/")
            // The cache keys pages by base URL: the same page asked directly still links to the Host.
            let direct = try await links(client, headers: [:])
            #expect(direct.url == "http://localhost/products/P000/")
        }
    }

    @Test func forwardedIsReadAsRFC7239SaysAndItsLastElementWins() async throws {
        try await proxyHarness(trust: true).run { client, components in
            try await seedCatalogue(components.store)
            let forwarded = HTTPField.Name("Forwarded")!
            for (value, base) in [
                (#"for=192.0.2.60;proto=https;host="api.example.org:8443""#, "https://api.example.org:8443"),
                ("proto=http;host=forged.example, for=198.51.100.17;Proto=HTTPS;Host=real.example", "https://real.example"),
                (#"for="[2001:db8::1]:4711";host=[2001:db8::2]:8080"#, "http://[2001:db8::2]:8080"),
                ("proto=https", "https://localhost"),
            ] {
                let (url, _) = try await links(client, headers: [forwarded: value])
                #expect(url == base + "/products/P000/", "Forwarded: \(value)")
            }
            // Forwarded wins over the older headers, which stand in for what it lacks.
            var both = viaProxy
            both[forwarded] = "host=new.example"
            let (url, _) = try await links(client, headers: both)
            #expect(url == "https://new.example/products/P000/")
            let (chained, _) = try await links(client, headers: [HTTPField.Name("X-Forwarded-Host")!: "forged.example, real.example"])
            #expect(chained == "http://real.example/products/P000/")
        }
    }

    @Test func implausibleForwardedValuesAreIgnored() async throws {
        try await proxyHarness(trust: true).run { client, components in
            try await seedCatalogue(components.store)
            for (proto, host) in [
                ("ftp", "a b.example"), ("javascript", "evil.example/path"), ("https:", "evil.example:99999"), ("", "user@evil.example"),
                ("http s", "evil.example:"),
            ] {
                let headers: HTTPFields = [HTTPField.Name("X-Forwarded-Proto")!: proto, HTTPField.Name("X-Forwarded-Host")!: host]
                let (url, _) = try await links(client, headers: headers)
                #expect(url == "http://localhost/products/P000/", "\(proto) \(host)")
                let (forwarded, _) = try await links(client, headers: [HTTPField.Name("Forwarded")!: "proto=\(proto);host=\"\(host)\""])
                #expect(forwarded == "http://localhost/products/P000/", "\(proto) \(host)")
            }
        }
    }

    @Test func hostsAreCheckedForShape() {
        for host in ["localhost", "localhost:8080", "a.example.com", "my_host-1.local:1", "[::1]", "[::1]:8080", "[2001:db8::1]", "127.0.0.1:65535"] {
            #expect(RequestURLs.isPlausibleHost(host), "\(host)")
        }
        for host in [
            "", ":80", "a b", "a/b", "a\\b", "a\u{7}b", "a\r\nb", "a:", "a:123456", "a:65536", "a:8x", "[::1", "[]", "[::1]x", "[zz::1]", "a@b",
            "a:1:2",
            String(repeating: "a", count: 256),
        ] {
            #expect(!RequestURLs.isPlausibleHost(host), "\(host)")
        }
    }

    @Test func aPublicURLWinsOverATrustedProxy() async throws {
        try await proxyHarness(trust: true, publicURL: "https://public.example/").run { client, components in
            try await seedCatalogue(components.store)
            let (url, next) = try await links(client, headers: viaProxy)
            #expect(url == "https://public.example/products/P000/")
            #expect(next?.hasPrefix("https://public.example/products?page_size=2&cursor=") == true)
        }
    }
}
