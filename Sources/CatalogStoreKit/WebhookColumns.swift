import CatalogStore

/// How every engine stores webhooks: the columns a subscription and an attempt are read from, in the order of
/// `Webhook.init(id:url:storedEntities:…)` and `WebhookAttempt.init`.
package enum WebhookColumns {
    package static let subscription = """
        id, url, entities, secret, created_at, delivered_seq, message_last_seq, state, failures, failing_since, last_error, next_attempt_at
        """
    package static let attempt = "at, message_id, first_seq, last_seq, changes, status, error, duration_ms"
}
