import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import CatalogAPI

@Suite("Early answers to requests with a body")
struct EarlyAnswerTests {
    static let body = [UInt8](repeating: UInt8(ascii: " "), count: 24 * 1024 * 1024)

    /// Sends each request the way `urllib` does (the whole body, then read) to a live server with a 1 MiB body limit.
    static func answers(token: String?, _ requests: [(method: String, path: String, headers: [(String, String)])]) async throws -> [RawConnection
        .Exchange]
    {
        var harness = WriteHarness(token: token, maximumBodyBytes: 1024 * 1024)
        harness.configuration.port = 0
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        let (application, _) = try await harness.build()
        return try await application.test(.live) { client in
            let port = try #require(client.port)
            var exchanges: [RawConnection.Exchange] = []
            for (method, path, headers) in requests {
                let request = RawConnection.request(method, path, headers: headers + [("Content-Type", "application/json")], body: body)
                exchanges.append(await BlockingClient.sendWholeThenRead(port: port, request: request))
            }
            return exchanges
        }
    }

    @Test func aClientThatSendsATooLargeBodyWholeReadsThe413() async throws {
        let exchanges = try await Self.answers(
            token: "secret",
            [
                ("PUT", "/products/A", [("Authorization", "Bearer secret"), ("Connection", "close")]),
                ("PUT", "/products/A", [("Authorization", "Bearer secret")]),
                ("POST", "/products", [("Authorization", "Bearer secret"), ("Connection", "close")]),
            ])
        for exchange in exchanges {
            #expect(!exchange.writeFailed)
            #expect(exchange.received.hasPrefix("HTTP/1.1 413 "), "\(exchange.received.prefix(120))")
            #expect(exchange.received.lowercased().contains("connection: close"))
            #expect(exchange.received.contains(#""type":"https://catalogd.dev/problems/body-too-large""#))
        }
    }

    @Test func aWriteRefusedBeforeItsBodyIsReadIsStillAnsweredToAClientThatSendsItWhole() async throws {
        let unauthorized = try await Self.answers(
            token: "secret", [("PUT", "/products/A", [("Authorization", "Bearer wrong"), ("Connection", "close")]), ("PUT", "/products/A", [])])
        let noTokenConfigured = try await Self.answers(
            token: nil, [("PUT", "/products/A", [("Authorization", "Bearer secret"), ("Connection", "close")])])
        for (exchange, status) in zip(unauthorized + noTokenConfigured, ["401", "401", "401"]) {
            #expect(!exchange.writeFailed)
            #expect(exchange.received.hasPrefix("HTTP/1.1 \(status) "), "\(exchange.received.prefix(120))")
        }
    }
}
