import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A webhook's receiver on a loopback port: it keeps every POST to `/hook` and answers each with the status `answer`
/// gives for it (the first is number 0).
struct WebhookReceiver {
    /// One POST as it came.
    struct Delivery: Sendable {
        let id: String
        let timestamp: String
        let signature: String
        let contentType: String
        let body: [UInt8]
        let status: Int

        /// Whether the signature is the HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed by the secret's decoded bytes.
        func isSigned(by secret: String) -> Bool {
            guard let key = Data(base64Encoded: String(secret.dropFirst("whsec_".count))) else { return false }
            var hmac = HMAC<SHA256>(key: SymmetricKey(data: key))
            hmac.update(data: Array("\(id).\(timestamp).".utf8))
            hmac.update(data: body)
            return signature == "v1," + Data(hmac.finalize()).base64EncodedString()
        }
    }

    actor Log {
        private(set) var deliveries: [Delivery] = []
        private let answer: @Sendable (Int) -> Int

        init(answer: @escaping @Sendable (Int) -> Int) { self.answer = answer }

        func record(id: String, timestamp: String, signature: String, contentType: String, body: [UInt8]) -> Int {
            let status = answer(deliveries.count)
            deliveries.append(Delivery(id: id, timestamp: timestamp, signature: signature, contentType: contentType, body: body, status: status))
            return status
        }
    }

    let log: Log
    let port: Int
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    var url: String { "http://127.0.0.1:\(port)/hook" }

    /// Starts a receiver on `port` (0: any free one).
    static func start(port: Int = 0, answer: @escaping @Sendable (Int) -> Int = { _ in 200 }) async throws -> WebhookReceiver {
        let log = Log(answer: answer)
        let router = Router()
        router.post("hook") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 16 << 20)
            let status = await log.record(
                id: request.headers[HTTPField.Name("webhook-id")!] ?? "", timestamp: request.headers[HTTPField.Name("webhook-timestamp")!] ?? "",
                signature: request.headers[HTTPField.Name("webhook-signature")!] ?? "", contentType: request.headers[.contentType] ?? "",
                body: Array(body.readableBytesView))
            return Response(status: HTTPResponse.Status(code: status), body: ResponseBody(byteBuffer: ByteBuffer(string: "ok")))
        }
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { portSink.yield($0.localAddress?.port ?? 0) }, logger: Logger(label: "webhook-receiver"))
        let group = ServiceGroup(services: [application], logger: Logger(label: "webhook-receiver"))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else { throw CancellationError() }
        return WebhookReceiver(log: log, port: bound, group: group, running: running)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }
}
