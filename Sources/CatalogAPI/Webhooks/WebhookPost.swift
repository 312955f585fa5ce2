import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// One POST of a message to a webhook's receiver: its host resolved and checked (`WebhookTarget.resolve`), then a
/// connection of its own to exactly that address, where TLS still names and verifies the URL's host; the whole within
/// the timeout. Redirects are not followed (a 3xx is the answer), and at most `maximumBodyBytes` of the answer's body
/// are read, then dropped.
enum WebhookPost {
    static let maximumBodyBytes = 64 * 1024

    /// Why an attempt got no HTTP status.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The receiver's status; throws `Failure` when none came within `timeout`, the host's resolution included (refused,
    /// reset, too slow, an address `WebhookTarget.resolve` refuses).
    static func send(
        _ body: [UInt8], headers: HTTPHeaders, to target: WebhookTarget, allowsPrivate: Bool, timeout: Duration
    ) async throws -> Int {
        do {
            return try await Deadline.run(within: timeout, orThrow: { Failure(description: "no answer within \(timeout)") }) {
                let address = try await target.resolve(allowsPrivate: allowsPrivate, within: timeout)
                return try await send(body, headers: headers, to: target, at: address, timeout: timeout)
            }
        } catch let refusal as WebhookTarget.Refusal {
            throw Failure(description: refusal.description)
        }
    }

    private static func send(
        _ body: [UInt8], headers: HTTPHeaders, to target: WebhookTarget, at address: SocketAddress, timeout: Duration
    ) async throws -> Int {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        // A refused connection is a failed attempt at once, tried again after the subscription's own back-off, rather
        // than tried again by the client until the timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        let connectTo = address.ipAddress ?? target.host
        // The client looks the override up under the host it reads from the URL, as `WebhookTarget` read it.
        configuration.dnsOverride[target.host] = connectTo
        // The client's own limits lie past the attempt's deadline (`Deadline.run`), which is the one that ends it.
        let amount = TimeAmount(timeout + .seconds(1))
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: amount, read: amount, write: amount)
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        request.headers = headers
        request.body = .bytes(ByteBuffer(bytes: body))
        let settings = configuration
        let post = request
        do {
            return try await HTTPClient.withHTTPClient(configuration: settings) { client in
                let response = try await client.execute(post, timeout: amount)
                var read = 0
                for try await part in response.body {
                    read += part.readableBytes
                    if read >= maximumBodyBytes { break }
                }
                return Int(response.status.code)
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as IOError {
            // NIO's own description repeats itself ("connection reset (error set): Connection refused) (errno: 111)").
            throw Failure(description: "could not connect to \(connectTo) port \(target.port): \(String(cString: strerror(error.errnoCode)))")
        } catch {
            throw Failure(description: "\(error)")
        }
    }
}
