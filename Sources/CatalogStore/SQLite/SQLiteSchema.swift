import CatalogModel
import GRDB

/// The store's migrations, applied in order at start-up.
///
/// Derived counts are kept by triggers so that they stay true whichever statement writes the rows:
/// the store's own upserts, a cascade, or SQL typed by hand.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: films, products, categories, history, imports") { db in
            try db.execute(sql: version1)
            try db.execute(sql: filmLinkCountTriggers)
            try db.execute(sql: categoryCountTriggers)
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
            let reports = try Row.fetchAll(db, sql: "SELECT id, rejections FROM imports WHERE rejections != '[]'")
            for report in reports {
                try ImportRejections.save(try ImportRejections.decodeLegacyJSON(report["rejections"]), of: report["id"], db)
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
            // this size (1 MB by default), then merges segments. At 64 MB, a first import of a million products builds
            // its index in 9.7 s instead of 17.5 (16 MB: 12.7 s; 256 MB: 10.2 s). The memory is held only while one
            // transaction writes that many words, and given back when it ends.
            let table = SQLiteSearchIndex.products.table
            try db.execute(sql: "INSERT INTO \(table) (\(table), rank) VALUES ('hashsize', 67108864)")
        }
        return migrator
    }

    /// Each category's products in stock, kept by the triggers that keep its products, so that `in_stock` is counted
    /// without reading the products; and the indexes that give the `stock` and `updated_at` orderings and select
    /// products in stock or not.
    static let inStockCounts = """
        ALTER TABLE categories ADD COLUMN in_stock_count INTEGER NOT NULL DEFAULT 0;
        UPDATE categories SET in_stock_count = (SELECT COUNT(*) FROM products WHERE category = categories.name AND stock > 0);
        DROP TRIGGER products_count_insert;
        DROP TRIGGER products_count_delete;
        DROP TRIGGER products_count_move;
        CREATE TRIGGER products_count_insert AFTER INSERT ON products BEGIN
            INSERT INTO categories (name, product_count, in_stock_count) VALUES (NEW.category, 1, NEW.stock > 0)
                ON CONFLICT(name) DO UPDATE SET product_count = product_count + 1, in_stock_count = in_stock_count + (NEW.stock > 0);
        END;
        CREATE TRIGGER products_count_delete AFTER DELETE ON products BEGIN
            UPDATE categories SET product_count = product_count - 1, in_stock_count = in_stock_count - (OLD.stock > 0)
                WHERE name = OLD.category;
            DELETE FROM categories WHERE name = OLD.category AND product_count <= 0;
        END;
        CREATE TRIGGER products_count_move AFTER UPDATE OF category, stock ON products
        WHEN OLD.category IS NOT NEW.category BEGIN
            UPDATE categories SET product_count = product_count - 1, in_stock_count = in_stock_count - (OLD.stock > 0)
                WHERE name = OLD.category;
            DELETE FROM categories WHERE name = OLD.category AND product_count <= 0;
            INSERT INTO categories (name, product_count, in_stock_count) VALUES (NEW.category, 1, NEW.stock > 0)
                ON CONFLICT(name) DO UPDATE SET product_count = product_count + 1, in_stock_count = in_stock_count + (NEW.stock > 0);
        END;
        CREATE TRIGGER products_count_stock AFTER UPDATE OF stock ON products
        WHEN OLD.category IS NEW.category AND (OLD.stock > 0) IS NOT (NEW.stock > 0) BEGIN
            UPDATE categories SET in_stock_count = in_stock_count + (NEW.stock > 0) - (OLD.stock > 0) WHERE name = NEW.category;
        END;
        CREATE INDEX products_by_stock ON products(stock, serial_code);
        CREATE INDEX products_by_updated_at ON products(updated_at, serial_code);
        """

    /// The FTS5 tables searches read (`SQLiteSearchIndex`), over the rows' own text (external content: the words are
    /// indexed, the text is not stored twice), kept by triggers in the transaction that writes the rows. A row
    /// rewritten with the same text changes nothing in its index. Ranks come from which columns match, not from
    /// BM25, so the column sizes BM25 reads are not kept (`columnsize = 0`: a first import of a million products
    /// builds its index about 10 % faster).
    static let searchIndexes: String = {
        let tokenizer = "tokenize = 'unicode61 remove_diacritics 2'"
        func keptIndex(_ index: SQLiteSearchIndex, of table: String) -> String {
            let columns = index.fields.columns
            let list = columns.joined(separator: ", ")
            func values(_ row: String) -> String { columns.map { "\(row).\($0)" }.joined(separator: ", ") }
            let changed = columns.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
            let remove = "INSERT INTO \(index.table) (\(index.table), rowid, \(list)) VALUES ('delete', OLD.rowid, \(values("OLD")));"
            let add = "INSERT INTO \(index.table) (rowid, \(list)) VALUES (NEW.rowid, \(values("NEW")));"
            return """
                CREATE VIRTUAL TABLE \(index.table) USING fts5(\(list), content = '\(table)', content_rowid = 'rowid', columnsize = 0, \(tokenizer));
                CREATE TRIGGER \(index.table)_insert AFTER INSERT ON \(table) BEGIN \(add) END;
                CREATE TRIGGER \(index.table)_delete AFTER DELETE ON \(table) BEGIN \(remove) END;
                CREATE TRIGGER \(index.table)_update AFTER UPDATE OF \(list) ON \(table) WHEN \(changed) BEGIN \(remove) \(add) END;
                \(index.rebuildSQL);
                """
        }
        // Categories have no rowid to share: their index holds the names, a few hundred at most.
        return keptIndex(.products, of: "products") + "\n" + keptIndex(.films, of: "films") + """

            CREATE VIRTUAL TABLE category_search USING fts5(name, \(tokenizer));
            CREATE TRIGGER category_search_insert AFTER INSERT ON categories BEGIN
                INSERT INTO category_search (name) VALUES (NEW.name);
            END;
            CREATE TRIGGER category_search_delete AFTER DELETE ON categories BEGIN
                DELETE FROM category_search WHERE name = OLD.name;
            END;
            INSERT INTO category_search (name) SELECT name FROM categories;
            """
    }()

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

    static let version1 = """
        CREATE TABLE films (
            episode_id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            opening_crawl TEXT NOT NULL,
            director TEXT NOT NULL,
            producer TEXT NOT NULL,
            release_date TEXT NOT NULL,
            created TEXT NOT NULL,
            edited TEXT NOT NULL,
            source_url TEXT NOT NULL,
            character_count INTEGER NOT NULL DEFAULT 0,
            planet_count INTEGER NOT NULL DEFAULT 0,
            starship_count INTEGER NOT NULL DEFAULT 0,
            vehicle_count INTEGER NOT NULL DEFAULT 0,
            species_count INTEGER NOT NULL DEFAULT 0,
            source TEXT NOT NULL,
            changed_seq INTEGER NOT NULL
        );
        CREATE INDEX films_by_title ON films(title, episode_id);
        CREATE INDEX films_by_release_date ON films(release_date, episode_id);

        CREATE TABLE film_links (
            episode_id INTEGER NOT NULL REFERENCES films(episode_id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('characters', 'planets', 'starships', 'vehicles', 'species')),
            position INTEGER NOT NULL,
            url TEXT NOT NULL,
            PRIMARY KEY (episode_id, kind, position)
        ) WITHOUT ROWID;

        CREATE TABLE products (
            serial_code TEXT NOT NULL PRIMARY KEY,
            name TEXT NOT NULL,
            description TEXT NOT NULL,
            category TEXT NOT NULL,
            brand TEXT NOT NULL,
            price TEXT NOT NULL,
            price_micros INTEGER NOT NULL,
            stock INTEGER NOT NULL,
            updated_at TEXT NOT NULL,
            source_url TEXT NOT NULL,
            source TEXT NOT NULL,
            changed_seq INTEGER NOT NULL
        );
        CREATE INDEX products_by_category ON products(category, serial_code);
        CREATE INDEX products_by_price ON products(price_micros, serial_code);
        CREATE INDEX products_by_name ON products(name, serial_code);

        CREATE TABLE categories (
            name TEXT NOT NULL PRIMARY KEY,
            product_count INTEGER NOT NULL
        ) WITHOUT ROWID;

        -- One row per inserted, updated or deleted row; seq is the change token clients resume from.
        CREATE TABLE changes (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            entity TEXT NOT NULL,
            key TEXT NOT NULL,
            op TEXT NOT NULL,
            author TEXT NOT NULL,
            at TEXT NOT NULL
        );

        -- The version of each resource family, for ETags; bumped once per write transaction that changed it.
        CREATE TABLE versions (
            name TEXT NOT NULL PRIMARY KEY,
            version INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO versions (name, version) VALUES ('films', 0), ('products', 0), ('imports', 0);

        CREATE TABLE imports (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            source TEXT NOT NULL,
            status TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            fetched INTEGER NOT NULL DEFAULT 0,
            inserted INTEGER NOT NULL DEFAULT 0,
            updated INTEGER NOT NULL DEFAULT 0,
            unchanged INTEGER NOT NULL DEFAULT 0,
            deleted INTEGER NOT NULL DEFAULT 0,
            rejected INTEGER NOT NULL DEFAULT 0,
            rejections TEXT NOT NULL DEFAULT '[]',
            error TEXT
        );

        -- What the upstream said about each page of the last successful run, for conditional requests.
        CREATE TABLE feed_pages (
            source TEXT NOT NULL,
            url TEXT NOT NULL,
            etag TEXT,
            last_modified TEXT,
            next_url TEXT,
            total INTEGER,
            records INTEGER NOT NULL,
            PRIMARY KEY (source, url)
        ) WITHOUT ROWID;
        """

    static let filmLinkCountTriggers: String = {
        func adjustments(_ row: String, _ sign: String) -> String {
            FilmLinkKind.allCases.map { kind in
                "\(kind.countColumn) = \(kind.countColumn) \(sign) (\(row).kind = '\(kind.rawValue)')"
            }.joined(separator: ", ")
        }
        return """
            CREATE TRIGGER film_links_count_insert AFTER INSERT ON film_links BEGIN
                UPDATE films SET \(adjustments("NEW", "+")) WHERE episode_id = NEW.episode_id;
            END;
            CREATE TRIGGER film_links_count_delete AFTER DELETE ON film_links BEGIN
                UPDATE films SET \(adjustments("OLD", "-")) WHERE episode_id = OLD.episode_id;
            END;
            CREATE TRIGGER film_links_count_update AFTER UPDATE OF episode_id, kind ON film_links BEGIN
                UPDATE films SET \(adjustments("OLD", "-")) WHERE episode_id = OLD.episode_id;
                UPDATE films SET \(adjustments("NEW", "+")) WHERE episode_id = NEW.episode_id;
            END;
            """
    }()

    /// Categories exist while they have products: the last product leaving one removes it.
    static let categoryCountTriggers = """
        CREATE TRIGGER products_count_insert AFTER INSERT ON products BEGIN
            INSERT INTO categories (name, product_count) VALUES (NEW.category, 1)
                ON CONFLICT(name) DO UPDATE SET product_count = product_count + 1;
        END;
        CREATE TRIGGER products_count_delete AFTER DELETE ON products BEGIN
            UPDATE categories SET product_count = product_count - 1 WHERE name = OLD.category;
            DELETE FROM categories WHERE name = OLD.category AND product_count <= 0;
        END;
        CREATE TRIGGER products_count_move AFTER UPDATE OF category ON products
        WHEN OLD.category IS NOT NEW.category BEGIN
            UPDATE categories SET product_count = product_count - 1 WHERE name = OLD.category;
            DELETE FROM categories WHERE name = OLD.category AND product_count <= 0;
            INSERT INTO categories (name, product_count) VALUES (NEW.category, 1)
                ON CONFLICT(name) DO UPDATE SET product_count = product_count + 1;
        END;
        """
}
