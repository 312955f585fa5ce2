import CatalogModel
import CatalogStore
import CatalogStoreKit
import Logging
import PostgresNIO

extension PostgresCatalogStore {
    public func createWebhook(url: String, entities: [Change.Entity], secret: String, since: Int64?, limit: Int) async throws -> Webhook? {
        try await transaction(.write) { connection in
            // Replicas creating at once count one after the other; reads of the table go on.
            try await connection.query("LOCK TABLE webhooks IN EXCLUSIVE MODE", logger: logger)
            guard try await fetchInteger(connection, "SELECT COUNT(*) FROM webhooks") < limit else { return nil }
            let history = try await historyBounds(connection)
            let start = since ?? history.lastSeq
            if start < history.horizon { throw HistoryGone(since: start, horizon: history.horizon, lastSeq: history.lastSeq) }
            let createdAt = Timestamp.now()
            let query: PostgresQuery = """
                INSERT INTO webhooks (url, entities, secret, created_at, delivered_seq, state, failures)
                VALUES (\(url), \(Webhook.storedEntities(entities)), \(secret), \(createdAt), \(start), 'active', 0) RETURNING id
                """
            var id: Int64 = 0
            for try await inserted in try await connection.query(query, logger: logger).decode(Int64.self) { id = inserted }
            return Webhook(id: id, url: url, entities: entities, secret: secret, createdAt: createdAt, deliveredSeq: start)
        }
    }

    public func webhooks() async throws -> [Webhook] {
        try await transaction(.read) { connection in
            try await fetchWebhooks(connection, "SELECT \(unescaped: WebhookColumns.subscription) FROM webhooks ORDER BY id")
        }
    }

    public func webhook(id: Int64) async throws -> Webhook? {
        try await transaction(.read) { connection in
            try await fetchWebhooks(connection, "SELECT \(unescaped: WebhookColumns.subscription) FROM webhooks WHERE id = \(id)").first
        }
    }

    public func deleteWebhook(id: Int64) async throws -> Bool {
        try await transaction(.write) { connection in
            var deleted = false
            for try await _ in try await connection.query("DELETE FROM webhooks WHERE id = \(id) RETURNING 1", logger: logger) { deleted = true }
            return deleted
        }
    }

    public func updateWebhook(
        _ webhook: Webhook, expectedDeliveredSeq: Int64, expectedState: Webhook.State, attempt: WebhookAttempt?, under claim: (any StoreClaim)?
    ) async throws -> Bool {
        let sender: PostgresClaim?
        switch claim {
        case nil: sender = nil
        case let claim as PostgresClaim: sender = claim
        default: throw ForeignImportPart("webhook claim", store: description)
        }
        return try await transaction(.write) { connection in
            // Recorded only while the lock is held by the session that took it: a sender whose session the server
            // ended records nothing, whatever it sent meanwhile.
            if let sender, try await !sender.isHeld(on: connection, logger: logger) { return false }
            let update: PostgresQuery = """
                UPDATE webhooks SET delivered_seq = \(webhook.deliveredSeq), message_last_seq = \(webhook.messageLastSeq),
                    state = \(webhook.state.rawValue), failures = \(Int32(clamping: webhook.failures)), failing_since = \(webhook.failingSince),
                    last_error = \(webhook.lastError), next_attempt_at = \(webhook.nextAttemptAt)
                WHERE id = \(webhook.id) AND delivered_seq = \(expectedDeliveredSeq) AND state = \(expectedState.rawValue) RETURNING 1
                """
            var updated = false
            for try await _ in try await connection.query(update, logger: logger) { updated = true }
            guard updated, let attempt else { return updated }
            let insert: PostgresQuery = """
                INSERT INTO webhook_attempts (webhook_id, \(unescaped: WebhookColumns.attempt))
                VALUES (\(webhook.id), \(attempt.at), \(attempt.messageID), \(attempt.firstSeq), \(attempt.lastSeq), \(Int32(clamping: attempt.changes)),
                    \(attempt.status.map { Int32(clamping: $0) }), \(attempt.error), \(Int32(clamping: attempt.durationMilliseconds)))
                """
            try await connection.query(insert, logger: logger)
            let trim: PostgresQuery = """
                DELETE FROM webhook_attempts WHERE webhook_id = \(webhook.id) AND id <= (
                    SELECT id FROM webhook_attempts WHERE webhook_id = \(webhook.id) ORDER BY id DESC LIMIT 1 OFFSET \(WebhookAttempt.kept))
                """
            try await connection.query(trim, logger: logger)
            return true
        }
    }

    public func webhookAttempts(id: Int64, limit: Int) async throws -> [WebhookAttempt] {
        try await transaction(.read) { connection in
            let query: PostgresQuery = """
                SELECT \(unescaped: WebhookColumns.attempt) FROM webhook_attempts WHERE webhook_id = \(id) ORDER BY id DESC LIMIT \(Int64(limit))
                """
            var attempts: [WebhookAttempt] = []
            for try await (at, messageID, firstSeq, lastSeq, changes, status, error, duration) in try await connection.query(query, logger: logger)
                .decode((String, String, Int64, Int64, Int, Int?, String?, Int).self)
            {
                attempts.append(
                    WebhookAttempt(
                        at: at, messageID: messageID, firstSeq: firstSeq, lastSeq: lastSeq, changes: changes, status: status, error: error,
                        durationMilliseconds: duration))
            }
            return attempts
        }
    }

    /// A session-level advisory lock on a connection of its own, as an import's (`claimImport`): one replica sends,
    /// and when it stops, however it stops, its connection ends and another takes over.
    public func claimWebhookDelivery() async throws -> (any StoreClaim)? {
        try await PostgresClaim.claim(PostgresLock.webhookDelivery, client: client, logger: logger, wait: connectionWait, store: description)
    }

    private func fetchWebhooks(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> [Webhook] {
        var webhooks: [Webhook] = []
        for try await row in try await connection.query(query, logger: logger) {
            let (id, url, entities, secret, createdAt, deliveredSeq, messageLastSeq, state, failures, failingSince, lastError, nextAttemptAt) =
                try row.decode((Int64, String, String, String, String, Int64, Int64?, String, Int, String?, String?, String?).self)
            webhooks.append(
                try Webhook(
                    id: id, url: url, storedEntities: entities, secret: secret, createdAt: createdAt, deliveredSeq: deliveredSeq,
                    messageLastSeq: messageLastSeq, storedState: state, failures: failures, failingSince: failingSince, lastError: lastError,
                    nextAttemptAt: nextAttemptAt))
        }
        return webhooks
    }
}
