import CatalogModel
import CatalogStore
import CatalogStoreKit
import GRDB

extension SQLiteCatalogStore {
    public func createWebhook(url: String, entities: [Change.Entity], secret: String, since: Int64?, limit: Int) async throws -> Webhook? {
        try await write { db in
            guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhooks") ?? 0 < limit else { return nil }
            let history = try Self.historyBounds(db)
            let start = since ?? history.lastSeq
            if start < history.horizon { throw HistoryGone(since: start, horizon: history.horizon, lastSeq: history.lastSeq) }
            let createdAt = Timestamp.now()
            try db.execute(
                sql: """
                    INSERT INTO webhooks (url, entities, secret, created_at, delivered_seq, state, failures)
                    VALUES (?, ?, ?, ?, ?, 'active', 0)
                    """,
                arguments: [url, Webhook.storedEntities(entities), secret, createdAt, start])
            return Webhook(id: db.lastInsertedRowID, url: url, entities: entities, secret: secret, createdAt: createdAt, deliveredSeq: start)
        }
    }

    public func webhooks() async throws -> [Webhook] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(WebhookColumns.subscription) FROM webhooks ORDER BY id").map(Self.decodeWebhook)
        }
    }

    public func webhook(id: Int64) async throws -> Webhook? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(WebhookColumns.subscription) FROM webhooks WHERE id = ?", arguments: [id]).map(Self.decodeWebhook)
        }
    }

    public func deleteWebhook(id: Int64) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM webhook_attempts WHERE webhook_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM webhooks WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    public func updateWebhook(
        _ webhook: Webhook, expectedDeliveredSeq: Int64, expectedState: Webhook.State, attempt: WebhookAttempt?, under claim: (any StoreClaim)?
    ) async throws -> Bool {
        // A lock file's claim is this process's until it releases it.
        if let claim, !claim.isHeld { return false }
        return try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhooks SET delivered_seq = ?, message_last_seq = ?, state = ?, failures = ?, failing_since = ?, last_error = ?,
                        next_attempt_at = ?
                    WHERE id = ? AND delivered_seq = ? AND state = ?
                    """,
                arguments: [
                    webhook.deliveredSeq, webhook.messageLastSeq, webhook.state.rawValue, webhook.failures, webhook.failingSince, webhook.lastError,
                    webhook.nextAttemptAt, webhook.id, expectedDeliveredSeq, expectedState.rawValue,
                ])
            guard db.changesCount > 0 else { return false }
            guard let attempt else { return true }
            try db.execute(
                sql: "INSERT INTO webhook_attempts (webhook_id, \(WebhookColumns.attempt)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    webhook.id, attempt.at, attempt.messageID, attempt.firstSeq, attempt.lastSeq, attempt.changes, attempt.status, attempt.error,
                    attempt.durationMilliseconds,
                ])
            try db.execute(
                sql: """
                    DELETE FROM webhook_attempts WHERE webhook_id = ? AND id <= (
                        SELECT id FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)
                    """,
                arguments: [webhook.id, webhook.id, WebhookAttempt.kept])
            return true
        }
    }

    public func webhookAttempts(id: Int64, limit: Int) async throws -> [WebhookAttempt] {
        try await read { db in
            let sql = "SELECT \(WebhookColumns.attempt) FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT ?"
            return try Row.fetchAll(db, sql: sql, arguments: [id, limit]).map { row in
                WebhookAttempt(
                    at: row[0], messageID: row[1], firstSeq: row[2], lastSeq: row[3], changes: row[4], status: row[5], error: row[6],
                    durationMilliseconds: row[7])
            }
        }
    }

    /// A lock file beside the store, as an import's (`claimImport`): two processes serving one file send once.
    public func claimWebhookDelivery() async throws -> (any StoreClaim)? {
        try SQLiteFileClaim(path: "\(path).webhooks.lock")
    }

    private static func decodeWebhook(_ row: Row) throws -> Webhook {
        try Webhook(
            id: row[0], url: row[1], storedEntities: row[2], secret: row[3], createdAt: row[4], deliveredSeq: row[5], messageLastSeq: row[6],
            storedState: row[7], failures: row[8], failingSince: row[9], lastError: row[10], nextAttemptAt: row[11])
    }
}
