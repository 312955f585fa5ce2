/// The PostgreSQL store's migrations, applied at start-up in one transaction under an advisory lock, so that
/// replicas starting together migrate exactly once: the first takes the lock and migrates, the others wait
/// for it and then find nothing left to do.
///
/// Each migration is the literal SQL it ran when it shipped, and never changes once shipped: it reads no Swift type or
/// value of the application, whose later changes would otherwise change the schema of new stores only. A store of any
/// earlier migration, migrated, has the schema of a fresh one, and both are the snapshot
/// `Tests/CatalogStoreTests/Schema/postgres.txt` (`SchemaSnapshotTests`). A change of schema is a new migration.
///
/// Text that is sorted or compared is `COLLATE "C"` (byte order), as SQLite compares it, so that every engine
/// pages and orders alike. Derived counts are kept by statement-level triggers over transition tables: one
/// aggregate update per statement, whatever statement writes the rows.
enum PostgresSchema {
    /// Each migration's statements, run one by one (the extended query protocol takes one statement at a time).
    static let migrations: [(identifier: String, statements: [String])] = [
        ("v1: films, products, categories, history, imports", version1),
        // A page's states hold only while its feed's rows are as the run that recorded them left them; rows of
        // earlier runs have no version, and the next run reads its listing whole.
        (
            "v2: page digests, and the version of the family their run left",
            ["ALTER TABLE feed_pages ADD COLUMN digest TEXT", "ALTER TABLE feed_pages ADD COLUMN family_version BIGINT"]
        ),
        // A brand's products, and the brand facet's counts, without reading the table.
        ("v3: products by brand", ["CREATE INDEX products_by_brand ON products(brand, serial_code)"]),
        ("v4: full-text search", searchVectors),
        // A search's matches are read rank by rank in the order the rows were first stored (`RankedWalk`), as SQLite
        // reads them by rowid; existing rows are numbered as they lie.
        (
            "v5: rows numbered in the order they are stored",
            [
                "ALTER TABLE products ADD COLUMN row_order bigserial", "CREATE UNIQUE INDEX products_by_row_order ON products(row_order)",
                "ALTER TABLE categories ADD COLUMN row_order bigserial", "CREATE UNIQUE INDEX categories_by_row_order ON categories(row_order)",
            ]
        ),
        ("v6: products in stock, counted per category; products by stock and by update", inStockCounts),
        // A brand's or a category's products in a price range are counted from the index alone.
        (
            "v7: a brand's and a category's products with their prices",
            [
                "DROP INDEX products_by_brand", "CREATE INDEX products_by_brand ON products(brand, serial_code, price_micros)",
                "DROP INDEX products_by_category", "CREATE INDEX products_by_category ON products(category, serial_code, price_micros)",
            ]
        ),
        // A product's or a film's page lists its own changes, newest first, without reading the whole history.
        ("v8: the history of one row", ["CREATE INDEX changes_by_key ON changes(entity, key, seq)"]),
        // A token is found by the SHA-256 of its secret (hex); the secret itself is never stored.
        (
            "v9: named tokens",
            [
                """
                CREATE TABLE tokens (
                    name TEXT COLLATE "C" NOT NULL PRIMARY KEY,
                    scopes TEXT NOT NULL,
                    created_at TEXT NOT NULL,
                    last_used_at TEXT,
                    expires_at TEXT,
                    secret_hash TEXT NOT NULL UNIQUE
                )
                """,
                "ALTER TABLE imports ADD COLUMN started_by TEXT",
            ]
        ),
        ("v10: the words of each product, with their rank", productWords),
        ("v11: how many products hold each word", productWordCounts),
        ("v12: webhooks", webhooks),
        ("v13: an update writes only the words that changed", productWordChanges),
        ("v14: a search's words folded in less time", quickerSearchWords),
        ("v15: a product's search vector written with its row", vectorsFromWriters),
        ("v16: a product's words counted by the write of its words", wordCountsFromProducts),
        ("v17: the words of each product kept as runs", wordRuns),
    ]
}
