import CatalogModel
import CatalogStore
import Hummingbird

/// `/webhooks`, for a `webhooks:admin` token: subscriptions to the history, delivered by `WebhookSender`. `POST` makes
/// one and shows its secret once; `GET` lists them or reads one (never the secret), with how far it has delivered;
/// `DELETE` ends one; `/deliveries` lists its newest attempts; `/resume` sends again after it was given up.
struct WebhooksController<Context: RequestContext> {
    let authority: TokenAuthority
    let urls: RequestURLs
    let settings: WebhookSettings
    /// The largest body `POST /webhooks` reads.
    static var maximumBodyBytes: Int { 16 * 1024 }

    private var store: any CatalogStore { authority.store }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.post(use: create)
        group.get("{id}", use: get)
        group.delete("{id}", use: delete)
        group.get("{id}/deliveries", use: deliveries)
        group.post("{id}/resume", use: resume)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        _ = try await authority.authorize(request, .webhooksAdmin)
        let webhooks = try await store.webhooks()
        if try ResponseFormat(request) == .html {
            return WebhookPages.list(webhooks, lastSeq: try await store.currentVersions().lastSeq, request: request)
        }
        let base = urls.base(for: request)
        let bytes = Representations.wholeList(webhooks) { Self.write($0, base: base, into: &$1) }
        return JSONResponder.unstored(JSONResponder.json(bytes))
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        _ = try await authority.authorize(request, .webhooksAdmin)
        let webhook = try await Self.webhook(try Self.id(context), store: store)
        if try ResponseFormat(request) == .html {
            return WebhookPages.item(webhook, attempts: try await store.webhookAttempts(id: webhook.id, limit: WebhookAttempt.kept), request: request)
        }
        return JSONResponder.unstored(JSONResponder.json(Representations.single { Self.write(webhook, base: urls.base(for: request), into: &$0) }))
    }

    /// `{"url", "entities": ["product", "film"], "since": N}` (`entities` and `since` optional) → 201 with the
    /// subscription and its `secret`.
    @Sendable func create(_ request: Request, context: Context) async throws -> Response {
        let admin = try await authority.authorize(request, .webhooksAdmin)
        let json = try WriteSupport.parse(try await BodyReader.collect(request, limit: Self.maximumBodyBytes))
        guard case .string(let url)? = json["url"] else { throw Problem.badParameter("url", "the body needs \"url\": an http or https URL") }
        let entities: [String]?
        switch json["entities"] {
        case nil, .null?: entities = nil
        case .array(let values)?:
            entities = try values.map { value in
                guard case .string(let name) = value else { throw Problem.badParameter("entities", WebhookIssuer.Refusal.badEntities.description) }
                return name
            }
        default: throw Problem.badParameter("entities", WebhookIssuer.Refusal.badEntities.description)
        }
        let since: Int64?
        switch json["since"] {
        case nil, .null?: since = nil
        case .number(let text)? where Int64(text).map({ $0 >= 0 }) == true: since = Int64(text)
        default: throw Problem.badParameter("since", "since must be a seq: an integer from 0, as X-Catalog-Seq or last_seq give it")
        }
        let created: Webhook
        do {
            created = try await WebhookIssuer.create(store, url: url, entities: entities, since: since, settings: settings)
        } catch let refusal as WebhookIssuer.Refusal {
            switch refusal {
            case .badURL: throw Problem.badParameter("url", refusal.description)
            case .badEntities: throw Problem.badParameter("entities", refusal.description)
            case .sinceAhead: throw Problem.badParameter("since", refusal.description)
            case .historyGone(let gone):
                throw Problem(.gone, type: "history-gone", detail: refusal.description, extensions: [("last_seq", .number(String(gone.lastSeq)))])
            case .limitReached: throw Problem(.conflict, type: "webhook-limit", detail: refusal.description)
            }
        }
        let base = urls.base(for: request)
        context.logger.notice(
            "webhook \(created.id) to \(created.url) created by \(admin.author)",
            metadata: ["webhook.id": "\(created.id)", "webhook.url": "\(created.url)", "token.author": "\(admin.author)"])
        let bytes = Representations.single { Self.write(created, base: base, showingSecret: true, into: &$0) }
        return JSONResponder.unstored(JSONResponder.json(bytes, status: .created, headers: [.location: Self.url(created.id, base: base)]))
    }

    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        let admin = try await authority.authorize(request, .webhooksAdmin)
        let id = try Self.id(context)
        guard try await store.deleteWebhook(id: id) else { throw Problem.notFound("no webhook \(id)") }
        context.logger.notice("webhook \(id) deleted by \(admin.author)", metadata: ["webhook.id": "\(id)", "token.author": "\(admin.author)"])
        return Response(status: .noContent)
    }

    @Sendable func deliveries(_ request: Request, context: Context) async throws -> Response {
        _ = try await authority.authorize(request, .webhooksAdmin)
        let id = try Self.id(context)
        _ = try await Self.webhook(id, store: store)
        let attempts = try await store.webhookAttempts(id: id, limit: WebhookAttempt.kept)
        var writer = JSONWriter(capacity: 256 * (attempts.count + 1))
        writer.objectStart()
        writer.member("count", attempts.count)
        writer.key("results")
        writer.arrayStart()
        for attempt in attempts {
            writer.objectStart()
            writer.member("at", attempt.at)
            writer.member("message_id", attempt.messageID)
            writer.member("first_seq", attempt.firstSeq)
            writer.member("last_seq", attempt.lastSeq)
            writer.member("changes", attempt.changes)
            writer.key("status")
            if let status = attempt.status { writer.int(status) } else { writer.null() }
            writer.member("error", attempt.error)
            writer.member("duration_ms", attempt.durationMilliseconds)
            writer.objectEnd()
        }
        writer.arrayEnd()
        writer.objectEnd()
        return JSONResponder.unstored(JSONResponder.json(writer.bytes))
    }

    /// Sends a given-up subscription's messages again, from where it stopped; a subscription that is active already is
    /// left as it is. One whose position the history no longer holds cannot resume (409).
    @Sendable func resume(_ request: Request, context: Context) async throws -> Response {
        let admin = try await authority.authorize(request, .webhooksAdmin)
        let id = try Self.id(context)
        var webhook = try await Self.webhook(id, store: store)
        switch webhook.state {
        case .gone:
            throw Problem(
                .conflict, type: "webhook-gone",
                detail:
                    "webhook \(id) cannot resume: \(webhook.lastError ?? "its position is no longer in the history"); delete it and subscribe again")
        case .failing:
            let given = webhook
            webhook.state = .active
            webhook.failures = 0
            webhook.failingSince = nil
            webhook.nextAttemptAt = nil
            guard try await store.updateWebhook(webhook, expectedDeliveredSeq: given.deliveredSeq, expectedState: .failing, attempt: nil, under: nil)
            else {
                throw Problem(.conflict, type: "webhook-moved", detail: "webhook \(id) changed meanwhile; read it and try again")
            }
            context.logger.notice("webhook \(id) resumed by \(admin.author)", metadata: ["webhook.id": "\(id)", "token.author": "\(admin.author)"])
        case .active:
            break
        }
        return JSONResponder.unstored(JSONResponder.json(Representations.single { Self.write(webhook, base: urls.base(for: request), into: &$0) }))
    }

    static func url(_ id: Int64, base: String) -> String { "\(base)/webhooks/\(id)" }

    /// `{"id", "url", "entities", "state", "delivered_seq", "failures", "failing_since", "last_error", "next_attempt_at",
    /// "created_at", "deliveries"}`, and `secret` when it was just made.
    static func write(_ webhook: Webhook, base: String, showingSecret: Bool = false, into writer: inout JSONWriter) {
        writer.objectStart()
        writer.member("id", webhook.id)
        writer.member("url", webhook.url)
        writer.key("entities")
        writer.arrayStart()
        for entity in webhook.entities { writer.string(entity.rawValue) }
        writer.arrayEnd()
        writer.member("state", webhook.state.rawValue)
        writer.member("delivered_seq", webhook.deliveredSeq)
        writer.member("failures", webhook.failures)
        for (name, value) in [
            ("failing_since", webhook.failingSince), ("last_error", webhook.lastError), ("next_attempt_at", webhook.nextAttemptAt),
            ("created_at", webhook.createdAt),
        ] {
            writer.member(name, value)
        }
        writer.member("deliveries", url(webhook.id, base: base) + "/deliveries")
        if showingSecret { writer.member("secret", webhook.secret) }
        writer.objectEnd()
    }

    private static func id(_ context: Context) throws -> Int64 {
        let text = try QueryReader.pathParameter("id", context)
        guard let id = Int64(text), id > 0 else { throw Problem.notFound("no webhook \(text)") }
        return id
    }

    private static func webhook(_ id: Int64, store: any CatalogStore) async throws -> Webhook {
        guard let webhook = try await store.webhook(id: id) else { throw Problem.notFound("no webhook \(id)") }
        return webhook
    }
}
