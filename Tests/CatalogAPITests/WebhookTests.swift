import AsyncHTTPClient
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing

@testable import CatalogAPI

/// Webhooks over HTTP, end to end: a service on a loopback port, with a receiver on another (`WebhookReceiver`).
@Suite("Webhooks: subscriptions, signed ordered deliveries, retries, giving up and resuming, safe targets")
struct WebhookTests {
    /// A service whose webhooks may go to loopback, tried again within a second and given up after `giveUpAfter`.
    static func start(_ backend: StoreBackend, giveUpAfter: Duration = .seconds(3600), allowsPrivate: Bool = true) async throws -> RunningService {
        try await RunningService.start(backend) { configuration in
            configuration.webhooks.allowsPrivateTargets = allowsPrivate
            configuration.webhooks.giveUpAfter = giveUpAfter
            configuration.webhooks.timeout = .seconds(2)
        }
    }

    /// One request to the service with the bootstrap token; the status and the body as JSON (nil when empty).
    static func call(_ service: RunningService, _ method: HTTPMethod, _ path: String, _ body: String? = nil) async throws -> (Int, JSONValue?) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(service.port)\(path)")
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer secret")
        request.headers.add(name: "Content-Type", value: "application/json")
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 24)
        let json = bytes.readableBytes == 0 ? nil : try JSONParser.parse(Array(bytes.readableBytesView))
        return (Int(response.status.code), json)
    }

    static func writeProducts(_ service: RunningService, _ keys: [String]) async throws {
        let body =
            "[" + keys.map { #"{"serial_code": "\#($0)", "name": "Lamp \#($0)", "category": "home", "price": 2.5}"# }.joined(separator: ",") + "]"
        let (status, _) = try await call(service, .POST, "/products", body)
        #expect(status == 200 || status == 201)
    }

    /// The changes of every delivery the receiver answered 2xx, in the order they came.
    static func deliveredChanges(_ receiver: WebhookReceiver) async throws -> [JSONValue] {
        var changes: [JSONValue] = []
        for delivery in await receiver.log.deliveries where (200..<300).contains(delivery.status) {
            guard case .array(let batch)? = try JSONParser.parse(delivery.body)["changes"] else { continue }
            changes += batch
        }
        return changes
    }

    /// Waits until `condition` holds, for at most `limit`.
    static func eventually(within limit: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }

    static func seqs(_ changes: [JSONValue]) -> [Int] { changes.compactMap { integer($0["seq"]) } }

    @Test(arguments: StoreBackend.available)
    func aSubscriptionIsMadeReadListedAndDeletedAndItsSecretShownOnce(_ backend: StoreBackend) async throws {
        let service = try await Self.start(backend)
        defer { service.testStore.remove() }
        let (created, body) = try await Self.call(service, .POST, "/webhooks", #"{"url": "http://127.0.0.1:9/hook", "entities": ["product"]}"#)
        #expect(created == 201)
        let json = try #require(body)
        guard case .string(let secret)? = json["secret"] else { throw CancellationError() }
        #expect(secret.hasPrefix("whsec_"))
        #expect((Data(base64Encoded: String(secret.dropFirst(6)))?.count ?? 0) >= 24)
        #expect(json["entities"] == .array([.string("product")]))
        #expect(json["state"] == .string("active"))
        #expect(integer(json["delivered_seq"]) == 0)
        let id = try #require(integer(json["id"]))
        let (read, one) = try await Self.call(service, .GET, "/webhooks/\(id)")
        #expect(read == 200 && one?["secret"] == nil && one?["url"] == .string("http://127.0.0.1:9/hook"))
        let (listed, list) = try await Self.call(service, .GET, "/webhooks")
        #expect(listed == 200 && integer(list?["count"]) == 1)
        #expect(list?["results"]?[0]?["secret"] == nil && list?["results"]?[0]?["id"] == .number(String(id)))
        #expect(try await Self.call(service, .GET, "/webhooks/\(id)/deliveries").1?["count"] == .number("0"))
        #expect(try await Self.call(service, .DELETE, "/webhooks/\(id)").0 == 204)
        #expect(try await Self.call(service, .GET, "/webhooks/\(id)").0 == 404)
        #expect(try await Self.call(service, .DELETE, "/webhooks/\(id)").0 == 404)
        let (badEntity, problem) = try await Self.call(service, .POST, "/webhooks", #"{"url": "http://127.0.0.1:9/", "entities": ["planet"]}"#)
        #expect(badEntity == 400 && problem?["parameter"] == .string("entities"))
        #expect(try await Self.call(service, .POST, "/webhooks", #"{"url": "ftp://example.com/"}"#).0 == 400)
        #expect(try await Self.call(service, .POST, "/webhooks", #"{"url": "http://127.0.0.1:9/", "since": -1}"#).0 == 400)
        let (ahead, aheadProblem) = try await Self.call(service, .POST, "/webhooks", #"{"url": "http://127.0.0.1:9/", "since": 5}"#)
        #expect(ahead == 400 && aheadProblem?["parameter"] == .string("since"))
        #expect(try await Self.call(service, .POST, "/webhooks", #"{"url": "http://127.0.0.1:99999/"}"#).0 == 400)
        _ = try await service.stop()
    }

    @Test(arguments: StoreBackend.available)
    func privateAddressesAreRefusedUnlessAllowed(_ backend: StoreBackend) async throws {
        let service = try await Self.start(backend, allowsPrivate: false)
        defer { service.testStore.remove() }
        for url in [
            "http://127.0.0.1:8080/", "http://[::1]:8080/", "http://169.254.169.254/latest/meta-data/", "http://10.1.2.3/", "http://172.16.0.1/",
            "http://192.168.1.1/", "http://[fd00::1]/", "http://[fe80::1]/", "http://0.0.0.0/", "http://[::ffff:127.0.0.1]/",
            "http://localhost:8080/",
            "http://100.64.0.1/",
        ] {
            let (status, problem) = try await Self.call(service, .POST, "/webhooks", #"{"url": "\#(url)"}"#)
            #expect(status == 400, "\(url)")
            #expect(problem?["parameter"] == .string("url"), "\(url)")
        }
        #expect(try await service.components.store.webhooks().isEmpty)
        _ = try await service.stop()
    }

    @Test(arguments: StoreBackend.available)
    func everyChangeIsDeliveredInOrderSignedWithItsRowAsItIsNow(_ backend: StoreBackend) async throws {
        let receiver = try await WebhookReceiver.start()
        let service = try await Self.start(backend)
        defer { service.testStore.remove() }
        for batch in 0..<5 { try await Self.writeProducts(service, (0..<50).map { "W\(batch)-\($0)" }) }
        #expect(try await Self.call(service, .DELETE, "/products/W0-0").0 == 204)
        #expect(try await Self.call(service, .PUT, "/films/4", #"{"title": "A New Hope", "release_date": "1977-05-25"}"#).0 == 201)
        // Made after the writes, from the start of the history: every message is made once the rows are as they end.
        let (_, body) = try await Self.call(service, .POST, "/webhooks", #"{"url": "\#(receiver.url)", "since": 0}"#)
        guard case .string(let secret)? = body?["secret"], let id = integer(body?["id"]) else { throw CancellationError() }
        let last = try await service.components.store.versions().lastSeq
        #expect(try await Self.eventually { Self.seqs(try await Self.deliveredChanges(receiver)).last == Int(last) })
        let changes = try await Self.deliveredChanges(receiver)
        #expect(Self.seqs(changes) == Array(1...Int(last)))
        let deliveries = await receiver.log.deliveries
        for delivery in deliveries {
            #expect(delivery.isSigned(by: secret))
            #expect(delivery.contentType == "application/json")
            let json = try JSONParser.parse(delivery.body)
            #expect(json["type"] == .string("catalog.changes"))
            guard case .array(let batch)? = json["changes"] else { continue }
            #expect(batch.count <= 100)
            #expect(delivery.id == "msg_\(id)_\(integer(batch.first?["seq"]) ?? 0)_\(integer(batch.last?["seq"]) ?? 0)")
        }
        // Both of the deleted row's changes carry null; a row's, its representation as GET gives it now.
        let deleted = changes.filter { $0["key"] == .string("W0-0") }
        #expect(deleted.count == 2 && deleted.allSatisfy { $0["data"] == .null })
        let lamp = try #require(changes.first { $0["key"] == .string("W1-7") })
        #expect(lamp["entity"] == .string("product") && lamp["op"] == .string("upsert") && lamp["author"] == .string("token:bootstrap"))
        #expect(lamp["data"]?["serial_code"] == .string("W1-7") && lamp["data"]?["name"] == .string("Lamp W1-7"))
        let film = try #require(changes.last)
        #expect(film["entity"] == .string("film") && film["data"]?["title"] == .string("A New Hope"))
        #expect(try await Self.eventually { integer(try await Self.call(service, .GET, "/webhooks/\(id)").1?["delivered_seq"]) == Int(last) })
        let (_, attempts) = try await Self.call(service, .GET, "/webhooks/\(id)/deliveries")
        #expect(integer(attempts?["count"]) == deliveries.count)
        #expect(attempts?["results"]?[0]?["status"] == .number("200"))
        #expect(Self.sampleMetric(service, #"catalogd_webhook_deliveries_total{result="success"}"#) == Double(deliveries.count))
        #expect(Self.sampleMetric(service, #"catalogd_webhook_lag_changes{webhook="\#(id)"}"#) == 0)
        _ = try await service.stop()
        await receiver.stop()
    }

    @Test(arguments: StoreBackend.available)
    func aFailedMessageIsSentAgainWithTheSameIDUntilTheReceiverTakesIt(_ backend: StoreBackend) async throws {
        // Three 503s, then 200s.
        let receiver = try await WebhookReceiver.start { $0 < 3 ? 503 : 200 }
        let service = try await Self.start(backend)
        defer { service.testStore.remove() }
        try await Self.writeProducts(service, ["R1", "R2"])
        let (_, body) = try await Self.call(service, .POST, "/webhooks", #"{"url": "\#(receiver.url)", "since": 0}"#)
        let id = try #require(integer(body?["id"]))
        #expect(try await Self.eventually { await receiver.log.deliveries.count >= 4 })
        try await Self.writeProducts(service, ["R3"])
        #expect(try await Self.eventually { Self.seqs(try await Self.deliveredChanges(receiver)) == [1, 2, 3] })
        let deliveries = await receiver.log.deliveries
        #expect(deliveries.prefix(4).allSatisfy { $0.id == "msg_\(id)_1_2" })
        #expect(deliveries.prefix(3).allSatisfy { $0.status == 503 })
        let webhook = try #require(try await service.components.store.webhook(id: Int64(id)))
        #expect(webhook.state == .active && webhook.failures == 0 && webhook.failingSince == nil && webhook.lastError == nil)
        let attempts = try await service.components.store.webhookAttempts(id: Int64(id), limit: 10)
        #expect(attempts.map(\.status).suffix(4) == [200, 503, 503, 503])
        #expect(Self.sampleMetric(service, #"catalogd_webhook_deliveries_total{result="failure"}"#) == 3)
        _ = try await service.stop()
        await receiver.stop()
    }

    @Test(arguments: StoreBackend.available)
    func aReceiverThatIsDownIsWaitedForAndGetsEverything(_ backend: StoreBackend) async throws {
        // A port nothing listens on, for a while.
        let probe = try await WebhookReceiver.start()
        let port = probe.port
        await probe.stop()
        let service = try await Self.start(backend)
        defer { service.testStore.remove() }
        let (_, body) = try await Self.call(service, .POST, "/webhooks", #"{"url": "http://127.0.0.1:\#(port)/hook", "entities": ["product"]}"#)
        let id = try #require(integer(body?["id"]))
        try await Self.writeProducts(service, ["D1", "D2"])
        #expect(try await Self.eventually { try await service.components.store.webhook(id: Int64(id))?.failures ?? 0 >= 2 })
        let failing = try #require(try await service.components.store.webhook(id: Int64(id)))
        #expect(failing.failingSince != nil && failing.nextAttemptAt != nil && failing.state == .active)
        #expect(try await service.components.store.webhookAttempts(id: Int64(id), limit: 1).first?.status == nil)
        try await Self.writeProducts(service, ["D3"])
        let receiver = try await WebhookReceiver.start(port: port)
        #expect(try await Self.eventually { Self.seqs(try await Self.deliveredChanges(receiver)) == [1, 2, 3] })
        _ = try await service.stop()
        await receiver.stop()
    }

    @Test(arguments: StoreBackend.available)
    func aSubscriptionFailingTooLongIsGivenUpUntilResumed(_ backend: StoreBackend) async throws {
        let healthy = Mutex(false)
        let receiver = try await WebhookReceiver.start { _ in healthy.withLock { $0 } ? 200 : 500 }
        let service = try await Self.start(backend, giveUpAfter: .seconds(2))
        defer { service.testStore.remove() }
        try await Self.writeProducts(service, ["G1"])
        let (_, body) = try await Self.call(service, .POST, "/webhooks", #"{"url": "\#(receiver.url)", "since": 0}"#)
        let id = try #require(integer(body?["id"]))
        #expect(try await Self.eventually { try await Self.call(service, .GET, "/webhooks/\(id)").1?["state"] == .string("failing") })
        let attemptsWhenGivenUp = await receiver.log.deliveries.count
        let (_, given) = try await Self.call(service, .GET, "/webhooks/\(id)")
        #expect(given?["last_error"] == .string("answered 500") && given?["next_attempt_at"] == .null && given?["failing_since"] != .null)
        try await Task.sleep(for: .seconds(2))
        #expect(await receiver.log.deliveries.count == attemptsWhenGivenUp)
        healthy.withLock { $0 = true }
        let (resumed, state) = try await Self.call(service, .POST, "/webhooks/\(id)/resume")
        #expect(resumed == 200 && state?["state"] == .string("active") && state?["failures"] == .number("0"))
        #expect(try await Self.eventually { Self.seqs(try await Self.deliveredChanges(receiver)) == [1] })
        #expect(try await Self.call(service, .POST, "/webhooks/\(id)/resume").0 == 200)
        _ = try await service.stop()
        await receiver.stop()
    }

    @Test(arguments: StoreBackend.available)
    func aSubscriptionGetsItsEntitiesAloneAndItsPositionPassesTheOthers(_ backend: StoreBackend) async throws {
        let receiver = try await WebhookReceiver.start()
        let service = try await Self.start(backend)
        defer { service.testStore.remove() }
        let (_, body) = try await Self.call(service, .POST, "/webhooks", #"{"url": "\#(receiver.url)", "entities": ["film"]}"#)
        let id = try #require(integer(body?["id"]))
        try await Self.writeProducts(service, ["E1", "E2"])
        #expect(try await Self.call(service, .PUT, "/films/5", #"{"title": "Empire", "release_date": "1980-05-21"}"#).0 == 201)
        try await Self.writeProducts(service, ["E3"])
        #expect(try await Self.eventually { integer(try await Self.call(service, .GET, "/webhooks/\(id)").1?["delivered_seq"]) == 4 })
        let changes = try await Self.deliveredChanges(receiver)
        #expect(changes.map { $0["entity"] } == [.string("film")])
        #expect(Self.seqs(changes) == [3])
        _ = try await service.stop()
        await receiver.stop()
    }

    /// A subscription made while private addresses were allowed, sent by a service that refuses them: each delivery
    /// checks the address it connects to, so nothing is sent.
    @Test(arguments: StoreBackend.available)
    func everyDeliveryChecksTheAddressItConnectsTo(_ backend: StoreBackend) async throws {
        let receiver = try await WebhookReceiver.start()
        let service = try await Self.start(backend, allowsPrivate: false)
        defer { service.testStore.remove() }
        let webhook = try #require(
            try await service.components.store.createWebhook(url: receiver.url, entities: [.product], secret: "whsec_AAAA", since: 0, limit: 10))
        try await Self.writeProducts(service, ["S1"])
        #expect(try await Self.eventually { try await service.components.store.webhook(id: webhook.id)?.failures ?? 0 >= 1 })
        let attempt = try #require(try await service.components.store.webhookAttempts(id: webhook.id, limit: 1).first)
        #expect(attempt.status == nil && attempt.error?.contains("127.0.0.1, a loopback") == true)
        #expect(await receiver.log.deliveries.isEmpty)
        _ = try await service.stop()
        await receiver.stop()
    }

    /// A subscription whose position the history no longer holds is `gone`, as the feed answers 410 for it, and cannot
    /// resume.
    @Test(arguments: StoreBackend.available)
    func aSubscriptionWhosePositionWasPrunedIsGone(_ backend: StoreBackend) async throws {
        let receiver = try await WebhookReceiver.start { _ in 503 }
        let service = try await Self.start(backend)
        defer { service.testStore.remove() }
        for key in ["P1", "P2", "P3"] { try await Self.writeProducts(service, [key]) }
        let (_, body) = try await Self.call(service, .POST, "/webhooks", #"{"url": "\#(receiver.url)", "since": 0}"#)
        let id = try #require(integer(body?["id"]))
        #expect(try await Self.eventually { await !receiver.log.deliveries.isEmpty })
        #expect(try await service.components.store.pruneHistory(before: "2100-01-01T00:00:00Z") == 2)
        #expect(try await Self.eventually { try await Self.call(service, .GET, "/webhooks/\(id)").1?["state"] == .string("gone") })
        let (_, gone) = try await Self.call(service, .GET, "/webhooks/\(id)")
        guard case .string(let reason)? = gone?["last_error"] else { throw CancellationError() }
        #expect(reason.contains("no longer holds the changes after seq 0"))
        let (resumed, problem) = try await Self.call(service, .POST, "/webhooks/\(id)/resume")
        #expect(resumed == 409 && problem?["type"] == .string("https://catalogd.dev/problems/webhook-gone"))
        _ = try await service.stop()
        await receiver.stop()
    }

    /// The pages: `/webhooks` and `/webhooks/{id}` for a token with the scope, and the overview's link to them shown to
    /// such a token alone.
    @Test(arguments: StoreBackend.available)
    func thePagesShowTheSubscriptionsToATokenWithTheScopeAlone(_ backend: StoreBackend) async throws {
        let service = try await Self.start(backend)
        defer { service.testStore.remove() }
        let webhook = try #require(
            try await service.components.store.createWebhook(
                url: "http://127.0.0.1:9/hook", entities: [.film], secret: "whsec_AAAA", since: 0, limit: 10))
        func page(_ path: String, token: String?) async throws -> (Int, String) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(service.port)\(path)")
            request.headers.add(name: "Accept", value: "text/html,application/xhtml+xml,*/*;q=0.8")
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 22)
            return (Int(response.status.code), String(buffer: body))
        }
        let (listed, list) = try await page("/webhooks", token: "secret")
        #expect(
            listed == 200 && list.contains("<h1>Webhooks</h1>") && list.contains("http://127.0.0.1:9/hook")
                && list.contains("/webhooks/\(webhook.id)"))
        let (one, item) = try await page("/webhooks/\(webhook.id)", token: "secret")
        #expect(one == 200 && item.contains("Webhook \(webhook.id)") && item.contains("Newest attempts") && !item.contains("whsec_AAAA"))
        #expect(try await page("/webhooks", token: nil).0 == 401)
        let (_, overview) = try await page("/", token: "secret")
        #expect(overview.contains(#"href="/webhooks""#))
        let (_, anonymous) = try await page("/", token: nil)
        #expect(!anonymous.contains("/webhooks"))
        let reader = try await TokenIssuer.create(service.components.store, name: "reader", scopes: ["read"], expires: nil).secret
        #expect(try await !page("/", token: reader).1.contains("/webhooks"))
        _ = try await service.stop()
    }

    /// A receiver that accepts and never answers holds the attempt for the timeout alone (2 s here), and a stop in the
    /// middle of the next attempt ends within the shutdown deadline, leaving the message to be sent again.
    @Test(arguments: StoreBackend.available)
    func aReceiverThatNeverAnswersCostsTheTimeoutAndAStopDoesNotWaitForIt(_ backend: StoreBackend) async throws {
        let attempts = AcceptedConnections()
        let silent = try await StoreOutageTests.silentServer(accepted: attempts)
        let port = try #require(silent.localAddress?.port)
        let service = try await Self.start(backend)
        defer { service.testStore.remove() }
        let webhook = try #require(
            try await service.components.store.createWebhook(
                url: "http://127.0.0.1:\(port)/hook", entities: [.product], secret: "whsec_AAAA", since: 0, limit: 10))
        try await Self.writeProducts(service, ["N1"])
        #expect(try await Self.eventually { try await service.components.store.webhook(id: webhook.id)?.failures ?? 0 >= 1 })
        let attempt = try #require(try await service.components.store.webhookAttempts(id: webhook.id, limit: 1).first)
        #expect(attempt.status == nil && attempt.error == "no answer within 2.0 seconds")
        // The timeout ends it (the receiver never answers); the upper bound leaves room for a machine loaded by the
        // other suites running beside this one (3.04 s seen in CI); without the timeout the attempt would never end.
        #expect((2_000..<6_000).contains(attempt.durationMilliseconds))
        // The next attempt is under way within about a second (a connection of its own); a stop cuts it. Waiting for
        // it, rather than for a fixed time, keeps the stop within its timeout on a machine busy with other suites.
        #expect(try await Self.eventually { attempts.count >= 2 })
        let took = try await service.stop()
        #expect(took < service.components.shutdownTimeout)
        let reopened = try await service.testStore.openAnother()
        let after = try #require(try await reopened.webhook(id: webhook.id))
        #expect(after.deliveredSeq == 0 && after.messageLastSeq == 1 && after.failures == 1, "the attempt cut by the stop is not recorded")
        try await reopened.close()
        try await silent.close()
    }

    /// The host checked is the host the HTTP client connects to: an internationalised name in its ASCII form, an IPv6
    /// address without brackets; and the addresses that carry a refused IPv4 address are refused.
    @Test func aURLIsReadAsTheClientReadsItAndEmbeddedAddressesAreChecked() throws {
        #expect(try WebhookTarget("http://xn--bcher-kva.example/hook").host == "xn--bcher-kva.example")
        #expect(try WebhookTarget("https://bücher.example/hook").host == "xn--bcher-kva.example")
        #expect(try WebhookTarget("http://[::1]:8080/").host == "::1")
        #expect(try WebhookTarget("https://a@example.com/").port == 443)
        func v6(_ text: String) throws -> Bool { WebhookTarget.isPublic(try SocketAddress(ipAddress: text, port: 80)) }
        for refused in [
            "::1", "::", "::ffff:127.0.0.1", "::127.0.0.1", "::10.0.0.1", "64:ff9b::a9fe:a9fe", "2002:c0a8:0101::1", "fec0::1", "fe80::1", "fd12::1",
            "ff02::1",
        ] {
            #expect(try !v6(refused), "\(refused)")
        }
        for allowed in ["2001:4860:4860::8888", "64:ff9b::808:808", "2002:0808:0808::1", "::ffff:8.8.8.8"] { #expect(try v6(allowed), "\(allowed)") }
        for refused in ["240.0.0.1", "255.255.255.255", "192.0.0.8", "198.19.1.1", "224.0.0.1", "100.127.0.1", "172.31.255.255"] {
            #expect(try !WebhookTarget.isPublic(SocketAddress(ipAddress: refused, port: 80)), "\(refused)")
        }
        for allowed in ["8.8.8.8", "172.32.0.1", "100.128.0.1", "198.20.0.1", "223.255.255.255"] {
            #expect(try WebhookTarget.isPublic(SocketAddress(ipAddress: allowed, port: 80)), "\(allowed)")
        }
    }

    static func sampleMetric(_ service: RunningService, _ series: String) -> Double? {
        CatalogAPITests.sample(service.components.metrics.registry, series)
    }
}

extension JSONValue {
    /// The element at `index` of an array; nil for anything else.
    fileprivate subscript(index: Int) -> JSONValue? {
        guard case .array(let values) = self, values.indices.contains(index) else { return nil }
        return values[index]
    }
}
