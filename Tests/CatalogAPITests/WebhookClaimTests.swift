import CatalogStore
import CatalogTestSupport
import Logging
import Testing

@testable import PostgresStore

/// The webhooks' sender on PostgreSQL, when the network to its session breaks without a word (a host that dies, a
/// partition): its claim's heartbeat finds the session silent, it stops sending and lets its connection go, and another
/// replica takes over.
@Suite("The webhooks' claim through a silent network")
struct WebhookClaimTests {
    @Test(.enabled(if: StoreBackend.available.contains(.postgres)))
    func aSenderWhoseSessionFallsSilentStopsAndAnotherTakesOver() async throws {
        let logger = Logger(label: "catalogd-tests")
        let database = try await TestStore.freshDatabase(logger: logger)
        let (proxy, location) = try await CuttableProxy.start(to: database)
        // A claim waits this long for its connection, which nothing here times: on CI's loaded two cores the sender's
        // first connection, through the proxy, once took more than a second, and the claim failed before the network
        // fell silent.
        let sender = try await PostgresCatalogStore.open(location, connectionWait: .seconds(10), logger: logger)
        let other = try await PostgresCatalogStore.open(database, connectionWait: .seconds(10), logger: logger)
        defer {
            sender.close()
            other.close()
        }
        try await other.withConnections {
            try await sender.withConnections {
                let claim = try #require(try await sender.claimWebhookDelivery())
                #expect(claim.isHeld)
                #expect(try await other.claimWebhookDelivery() == nil)
                // Held across heartbeats while the session answers.
                try await Task.sleep(for: PostgresClaim.heartbeat * 2 + .seconds(1))
                #expect(claim.isHeld)
                #expect(try await other.claimWebhookDelivery() == nil)
                proxy.freeze()
                let frozen = ContinuousClock.now
                while claim.isHeld, ContinuousClock.now - frozen < .seconds(15) { try await Task.sleep(for: .milliseconds(100)) }
                let noticed = ContinuousClock.now - frozen
                #expect(!claim.isHeld, "the sender still believed it held the claim after \(noticed)")
                #expect(noticed <= PostgresClaim.heartbeat + PostgresClaim.heartbeatWait + .seconds(1))
                var taken: (any StoreClaim)?
                while taken == nil, ContinuousClock.now - frozen < .seconds(15) {
                    taken = try await other.claimWebhookDelivery()
                    if taken == nil { try await Task.sleep(for: .milliseconds(200)) }
                }
                #expect(taken != nil, "no other session could take the claim within 15 s")
                await taken?.release()
                await claim.release()
            }
        }
        await proxy.cut()
    }
}
