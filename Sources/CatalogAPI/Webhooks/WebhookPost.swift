import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// One POST of a message to a webhook's receiver, over a connection of its own to the address that was checked
/// (`WebhookTarget.resolve`): TLS still names and verifies the URL's host. Redirects are not followed (a 3xx is the
/// answer), and at most `maximumBodyBytes` of the answer's body are read, then dropped.
enum WebhookPost {
    static let maximumBodyBytes = 64 * 1024

    /// Why an attempt got no HTTP status.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The receiver's status; throws `Failure` when none came within `timeout` (refused, reset, too slow).
    static func send(
        _ body: [UInt8], headers: HTTPHeaders, to target: WebhookTarget, at address: SocketAddress, timeout: Duration
    ) async throws -> Int {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        let connectTo = address.ipAddress ?? target.host
        configuration.dnsOverride[target.host] = connectTo
        configuration.dnsOverride[target.host.lowercased()] = connectTo
        let amount = TimeAmount(timeout)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: amount, read: amount, write: amount)
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        request.headers = headers
        request.body = .bytes(ByteBuffer(bytes: body))
        let settings = configuration
        let post = request
        do {
            return try await withDeadline(timeout) {
                try await HTTPClient.withHTTPClient(configuration: settings) { client in
                    let response = try await client.execute(post, timeout: amount)
                    var read = 0
                    for try await part in response.body {
                        read += part.readableBytes
                        if read >= maximumBodyBytes { break }
                    }
                    return Int(response.status.code)
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Failure(description: "\(error)")
        }
    }

    /// `body`'s result, or a `Failure` once `timeout` has passed: the whole attempt, answer's body included.
    private static func withDeadline<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw Failure(description: "no answer within \(timeout)")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}
