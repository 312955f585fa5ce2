extension PostgresSchema {
    /// Migration v12: subscriptions to the history (`Webhook`), with the secret their messages are signed with (a
    /// signature needs the key itself, unlike a token's check), and their newest attempts (`WebhookAttempt`).
    /// `entities` holds entity names, comma-separated.
    static let webhooks: [String] = [
        """
        CREATE TABLE webhooks (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            url TEXT NOT NULL,
            entities TEXT NOT NULL,
            secret TEXT NOT NULL,
            created_at TEXT NOT NULL,
            delivered_seq BIGINT NOT NULL,
            message_last_seq BIGINT,
            state TEXT NOT NULL,
            failures INTEGER NOT NULL,
            failing_since TEXT,
            last_error TEXT,
            next_attempt_at TEXT
        )
        """,
        """
        CREATE TABLE webhook_attempts (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            webhook_id BIGINT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
            at TEXT NOT NULL,
            message_id TEXT NOT NULL,
            first_seq BIGINT NOT NULL,
            last_seq BIGINT NOT NULL,
            changes INTEGER NOT NULL,
            status INTEGER,
            error TEXT,
            duration_ms INTEGER NOT NULL
        )
        """,
        "CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts(webhook_id, id)",
    ]
}
