import CatalogModel
import CatalogStore
import CatalogTestSupport
import Testing

@Suite("Webhooks as the store keeps them")
struct WebhookStoreTests {
    @Test(arguments: StoreBackend.available)
    func aSubscriptionStartsAtTheNewestSeqUnlessToldAndIsCapped(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts([try product("P1"), try product("P2")], author: "api")
        let now = try #require(try await store.createWebhook(url: "http://a.example/", entities: [.product], secret: "whsec_a", since: nil, limit: 2))
        #expect(now.deliveredSeq == 2)
        #expect(now.state == .active && now.messageLastSeq == nil && now.failures == 0)
        let all = try #require(
            try await store.createWebhook(url: "http://b.example/", entities: [.film, .product], secret: "whsec_b", since: 0, limit: 2))
        #expect(all.deliveredSeq == 0 && all.id > now.id)
        #expect(try await store.createWebhook(url: "http://c.example/", entities: [.film], secret: "whsec_c", since: nil, limit: 2) == nil)
        #expect(try await store.webhooks() == [now, all])
        #expect(try await store.webhook(id: all.id)?.entities == [.film, .product])
        #expect(try await store.deleteWebhook(id: now.id))
        #expect(try await store.deleteWebhook(id: now.id) == false)
        #expect(try await store.webhooks() == [all])
    }

    @Test(arguments: StoreBackend.available)
    func aPositionThePruningPassedIsRefused(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        for key in ["P1", "P2", "P3"] { _ = try await store.upsertProducts([try product(key)], author: "api") }
        #expect(try await store.pruneHistory(before: "2100-01-01T00:00:00Z") == 2)
        await #expect(throws: HistoryGone.self) {
            try await store.createWebhook(url: "http://a.example/", entities: [.product], secret: "s", since: 0, limit: 10)
        }
        #expect(try await store.createWebhook(url: "http://a.example/", entities: [.product], secret: "s", since: 2, limit: 10)?.deliveredSeq == 2)
    }

    @Test(arguments: StoreBackend.available)
    func anUpdateLandsOnlyFromTheStateItWasMadeFromAndKeepsTheNewestAttempts(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        let created = try #require(try await store.createWebhook(url: "http://a.example/", entities: [.product], secret: "s", since: 0, limit: 10))
        func attempt(_ number: Int, status: Int?) -> WebhookAttempt {
            WebhookAttempt(
                at: "2026-11-28T00:00:00Z", messageID: "msg_\(number)", firstSeq: Int64(number), lastSeq: Int64(number), changes: 1, status: status,
                error: status == nil ? "refused" : nil, durationMilliseconds: number)
        }
        var failing = created
        failing.messageLastSeq = 5
        failing.failures = 1
        failing.failingSince = "2026-11-28T00:00:00Z"
        failing.lastError = "refused"
        failing.nextAttemptAt = "2026-11-28T00:00:01Z"
        #expect(try await store.updateWebhook(failing, expectedDeliveredSeq: 0, expectedState: .active, attempt: attempt(0, status: nil), under: nil))
        #expect(try await store.webhook(id: created.id) == failing)
        // Another replica's view, one delivery behind, changes nothing.
        var stale = created
        stale.deliveredSeq = 3
        #expect(
            try await store.updateWebhook(stale, expectedDeliveredSeq: 2, expectedState: .active, attempt: attempt(1, status: 200), under: nil)
                == false)
        #expect(try await store.updateWebhook(stale, expectedDeliveredSeq: 0, expectedState: .failing, attempt: nil, under: nil) == false)
        #expect(try await store.webhook(id: created.id) == failing)
        for number in 1...(WebhookAttempt.kept + 5) {
            #expect(
                try await store.updateWebhook(
                    failing, expectedDeliveredSeq: 0, expectedState: .active, attempt: attempt(number, status: 500), under: nil))
        }
        let attempts = try await store.webhookAttempts(id: created.id, limit: 1000)
        #expect(attempts.count == WebhookAttempt.kept)
        #expect(attempts.first == attempt(WebhookAttempt.kept + 5, status: 500))
        #expect(attempts.last?.messageID == "msg_6")
        #expect(try await store.webhookAttempts(id: created.id, limit: 3).map(\.messageID) == ["msg_105", "msg_104", "msg_103"])
        #expect(try await store.deleteWebhook(id: created.id))
        #expect(try await store.webhookAttempts(id: created.id, limit: 10).isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func checkFindsAPositionOutsideTheHistory(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        _ = try await temporary.store.upsertProducts([try product("P1")], author: "api")
        let webhook = try #require(
            try await temporary.store.createWebhook(url: "http://a.example/", entities: [.product], secret: "s", since: nil, limit: 10))
        #expect(try await temporary.store.check().isEmpty)
        try await temporary.executeRaw("UPDATE webhooks SET delivered_seq = 7 WHERE id = ?", [.integer(Int(webhook.id))])
        let problems = try await temporary.store.check()
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("webhook \(webhook.id): delivered seq 7") == true)
    }

    @Test(arguments: StoreBackend.available)
    func oneProcessSendsAtATimeAndAnotherTakesOverWhenItStops(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let other = try await temporary.openAnother()
        var first = try await other.claimWebhookDelivery()
        #expect(first?.isHeld == true)
        #expect(try await temporary.store.claimWebhookDelivery() == nil)
        // The holder stops without releasing: its connection, or its process's open lock file, goes with it.
        try await other.close()
        if backend == .postgres {
            for _ in 0..<50 where first?.isHeld == true { try await Task.sleep(for: .milliseconds(100)) }
            #expect(first?.isHeld == false)
        }
        first = nil
        var next: (any StoreClaim)?
        for _ in 0..<50 where next == nil {
            next = try await temporary.store.claimWebhookDelivery()
            if next == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let taken = try #require(next)
        // What the sender records, it records while its claim is held.
        let webhook = try #require(
            try await temporary.store.createWebhook(url: "http://a.example/", entities: [.product], secret: "s", since: 0, limit: 10))
        var moved = webhook
        moved.failures = 1
        #expect(try await temporary.store.updateWebhook(moved, expectedDeliveredSeq: 0, expectedState: .active, attempt: nil, under: taken))
        await taken.release()
        #expect(taken.isHeld == false)
        moved.failures = 2
        #expect(try await temporary.store.updateWebhook(moved, expectedDeliveredSeq: 0, expectedState: .active, attempt: nil, under: taken) == false)
        #expect(try await temporary.store.webhook(id: webhook.id)?.failures == 1)
        let again = try #require(try await temporary.store.claimWebhookDelivery())
        await again.release()
    }
}
