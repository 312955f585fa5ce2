import CatalogModel
import CatalogStore

/// Makes subscriptions, for `POST /webhooks` and `catalogd webhook create` alike: checks the URL (`WebhookTarget`), reads
/// the entities, and keeps it with a new secret.
public enum WebhookIssuer {
    /// Why a subscription was not made; its description says what to change.
    public enum Refusal: Error, CustomStringConvertible {
        case badURL(String)
        case badEntities
        case historyGone(HistoryGone)
        case sinceAhead(since: Int64, lastSeq: Int64)
        case limitReached(Int)

        public var description: String {
            switch self {
            case .badURL(let reason): reason
            case .badEntities: "entities must name at least one of \(WebhookIssuer.entityNames), or be left out for all"
            case .historyGone(let gone):
                "changes after \(gone.since) are no longer kept (history starts after \(gone.horizon)); export the catalogue and subscribe since its X-Catalog-Seq"
            case .sinceAhead(let since, let lastSeq):
                "since \(since) is after the newest seq, \(lastSeq): a subscription starts at a seq the history has"
            case .limitReached(let limit): "the service keeps at most \(limit) webhooks (--max-webhooks); delete one first"
            }
        }
    }

    static var entityNames: String { Change.Entity.allCases.map(\.rawValue).joined(separator: ", ") }

    /// A new active subscription to `url`, delivering the changes of `entities` (nil: every entity) after `since`
    /// (nil: after the newest).
    public static func create(
        _ store: any CatalogStore, url: String, entities names: [String]?, since: Int64?, settings: WebhookSettings
    ) async throws -> Webhook {
        do {
            _ = try await WebhookTarget(url).resolve(allowsPrivate: settings.allowsPrivateTargets, within: settings.timeout)
        } catch {
            throw Refusal.badURL(error.description)
        }
        var entities = Change.Entity.allCases
        if let names {
            let named = try names.map { name in
                guard let entity = Change.Entity(rawValue: name) else { throw Refusal.badEntities }
                return entity
            }
            guard !named.isEmpty else { throw Refusal.badEntities }
            entities = entities.filter(named.contains)
        }
        if let since {
            let lastSeq = try await store.currentVersions().lastSeq
            if since > lastSeq { throw Refusal.sinceAhead(since: since, lastSeq: lastSeq) }
        }
        let created: Webhook?
        do {
            created = try await store.createWebhook(
                url: url, entities: entities, secret: WebhookSignature.newSecret(), since: since, limit: settings.maximumSubscriptions)
        } catch let gone as HistoryGone {
            throw Refusal.historyGone(gone)
        }
        guard let created else { throw Refusal.limitReached(settings.maximumSubscriptions) }
        return created
    }
}
