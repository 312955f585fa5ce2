import CatalogStore
import GRDB

/// The store's migrations, applied in order at start-up.
///
/// Each is the literal SQL it ran when it shipped, and never changes once shipped: it reads no Swift type or value of
/// the application, whose later changes would otherwise change the schema of new stores only. A store of any earlier
/// migration, migrated, has the schema of a fresh one, and both are the snapshot `Tests/CatalogStoreTests/Schema/sqlite.txt`
/// (`SchemaSnapshotTests`). A change of schema is a new migration.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: films, products, categories, history, imports") { db in
            try db.execute(sql: version1)
        }
        migrator.registerMigration("v2: successful imports by source") { db in
            // Readiness asks for each source's last successful run on every probe.
            try db.execute(sql: "CREATE INDEX imports_by_source_status ON imports(source, status, finished_at)")
        }
        migrator.registerMigration("v3: rejections in their own table") { db in
            // A report's rejections were a JSON array in imports.rejections, parsed back on every read. The column
            // stays, '[]' for every later report: an older catalogd still running on the file (a rolling upgrade,
            // a rollback) goes on reading and writing reports, and migrations only ever add.
            try db.execute(sql: importRejections)
            // The array's elements, in its order, become the report's lines; an element that is not a rejection makes
            // the migration fail, and the store stays as it was.
            do {
                try db.execute(sql: importRejectionsFromJSON)
            } catch let error as DatabaseError {
                throw UnreadableStoredValue(column: "imports.rejections", value: error.message ?? String(describing: error.resultCode))
            }
        }
        migrator.registerMigration("v4: page digests, and the version of the family their run left") { db in
            // A page's states hold only while its feed's rows are as the run that recorded them left them; rows of
            // earlier runs have no version, and the next run reads its listing whole.
            try db.execute(sql: "ALTER TABLE feed_pages ADD COLUMN digest TEXT")
            try db.execute(sql: "ALTER TABLE feed_pages ADD COLUMN family_version INTEGER")
        }
        migrator.registerMigration("v5: products by brand") { db in
            // A brand's products, and the brand facet's counts, without reading the table.
            try db.execute(sql: "CREATE INDEX products_by_brand ON products(brand, serial_code)")
        }
        migrator.registerMigration("v6: full-text search") { db in
            // Built once here from the rows already stored; the triggers keep them from then on.
            try db.execute(sql: searchIndexes)
        }
        migrator.registerMigration("v7: products in stock, counted per category; products by stock and by update") { db in
            try db.execute(sql: inStockCounts)
        }
        migrator.registerMigration("v8: a brand's and a category's products with their prices") { db in
            // A brand's or a category's products in a price range are counted from the index alone.
            try db.execute(
                sql: """
                    DROP INDEX products_by_brand;
                    CREATE INDEX products_by_brand ON products(brand, serial_code, price_micros);
                    DROP INDEX products_by_category;
                    CREATE INDEX products_by_category ON products(category, serial_code, price_micros);
                    """)
        }
        migrator.registerMigration("v9: the history of one row") { db in
            // A product's or a film's page lists its own changes, newest first, without reading the whole history.
            try db.execute(sql: "CREATE INDEX changes_by_key ON changes(entity, key, seq)")
        }
        migrator.registerMigration("v10: named tokens") { db in
            // A token is found by the SHA-256 of its secret (hex); the secret itself is never stored.
            try db.execute(
                sql: """
                    CREATE TABLE tokens (
                        name TEXT NOT NULL PRIMARY KEY,
                        scopes TEXT NOT NULL,
                        created_at TEXT NOT NULL,
                        last_used_at TEXT,
                        expires_at TEXT,
                        secret_hash TEXT NOT NULL UNIQUE
                    ) WITHOUT ROWID
                    """)
            try db.execute(sql: "ALTER TABLE imports ADD COLUMN started_by TEXT")
        }
        migrator.registerMigration("v11: the products' search index written in bigger runs") { db in
            // FTS5 gathers a transaction's new words in memory and writes them out as a segment each time they pass
            // this size (1 MB by default), then merges segments. At 64 MB a first import of a million products builds
            // its index in about half the time; the memory is held only while one transaction writes that many words.
            try db.execute(sql: "INSERT INTO product_search (product_search, rank) VALUES ('hashsize', 67108864)")
        }
        migrator.registerMigration("v12: webhooks") { db in
            for statement in webhooks { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v13: the products' search index merged beside the writes") { db in
            // FTS5 merges a level's segments inside the write that finds too many, at once when it finds 16: beside a
            // first import's one segment, the 16th single-product write rewrote the whole index (370 ms, 55 MB of
            // log at 200,000 products). The store merges them a step at a time after commits instead
            // (`SearchIndexMerger`); FTS5 still merges at once a level of 64, which only a store no catalogd serves
            // reaches.
            try db.execute(
                sql: """
                    INSERT INTO product_search (product_search, rank) VALUES ('automerge', 0);
                    INSERT INTO product_search (product_search, rank) VALUES ('crisismerge', 64);
                    """)
        }
        migrator.registerMigration("v14: the products' search index merged a level at 16 segments") { db in
            // A step of merging (`SearchIndexMerger`) merges a level once it holds this many segments (4 by default),
            // and a level's merge rewrites every segment on it, the largest included. At 4, a first import's index of a
            // million products (20,000 pages, 2.3 s of a core to rewrite) was rewritten at the first single-product
            // write after the import and again at the 34th; at 5 writes a second, the requests beside such a rewrite
            // shared the cores with it, and searches under writes had a 99th percentile 3 to 5 times their median.
            // At 16 it was rewritten at the 13th write and the 253rd, and each level's rewrites come 16 times as
            // far apart as the level's below; a search reads at most 15 more segments per level, a lookup of its words
            // each.
            try db.execute(sql: "INSERT INTO product_search (product_search, rank) VALUES ('usermerge', 16)")
        }
        return migrator
    }

    static let importRejections = """
        CREATE TABLE import_rejections (
            import_id INTEGER NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            record_index INTEGER NOT NULL,
            key TEXT,
            reason TEXT NOT NULL,
            PRIMARY KEY (import_id, position)
        ) WITHOUT ROWID
        """

    /// The JSON array `[{"index", "key", "reason"}]` that reports kept before migration v3, one line an element.
    static let importRejectionsFromJSON = """
        INSERT INTO import_rejections (import_id, position, record_index, key, reason)
        SELECT imports.id, rejection.key, json_extract(rejection.value, '$.index'), json_extract(rejection.value, '$.key'),
            json_extract(rejection.value, '$.reason')
        FROM imports, json_each(imports.rejections) AS rejection
        WHERE imports.rejections != '[]'
        """
}
