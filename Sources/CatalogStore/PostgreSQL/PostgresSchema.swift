import CatalogModel
import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL store's migrations, applied at start-up in one transaction under an advisory lock, so that
/// replicas starting together migrate exactly once: the first takes the lock and migrates, the others wait
/// for it and then find nothing left to do.
///
/// Text that is sorted or compared is `COLLATE "C"` (byte order), as SQLite compares it, so that every engine
/// pages and orders alike. Derived counts are kept by statement-level triggers over transition tables: one
/// aggregate update per statement, whatever statement writes the rows.
enum PostgresSchema {
    /// Each migration's statements, run one by one (the extended query protocol takes one statement at a time).
    static let migrations: [(identifier: String, statements: [String])] = [
        ("v1: films, products, categories, history, imports", statements(version1) + filmLinkCountTriggers + categoryCountTriggers),
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
            ["products", "categories"].flatMap { table in
                [
                    "ALTER TABLE \(table) ADD COLUMN row_order bigserial",
                    "CREATE UNIQUE INDEX \(table)_by_row_order ON \(table)(row_order)",
                ]
            }
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
    ]

    /// What a search ignores, as functions a generated column may call: the diacritics of Latin letters, as SQLite's
    /// `unicode61` tokenizer drops them (`remove_diacritics 2`: a letter whose canonical decomposition is an ASCII
    /// letter and combining marks is that letter, but for Ǡ and ǡ, which its table lacks); and what separates words
    /// besides what the text search parser counts as neither letter nor digit, ASCII punctuation, which it would otherwise read as parts of e-mail
    /// addresses, paths or version numbers. Regular expressions over explicit code points hold whatever the
    /// column's collation (the `C` of sorted text would make `[:alnum:]` ASCII only); the `simple` configuration
    /// lowers case by the database's own locale. A `translate` table of the 486 Latin letters did the same at a
    /// tenth of the speed: a million products took five minutes to import.
    ///
    /// Each function is whole in itself, calling only the built-in functions every search path finds: a restore
    /// of `pg_dump` output, which empties the search path, computes the generated columns with them.
    static let searchFunctions: [String] = {
        let fold = #"normalize(regexp_replace(normalize($1, NFD), '([B-Zb-z]|[Aa](?!\u0307\u0304))[\u0300-\u036f]+', '\1', 'g'), NFC)"#
        return [
            "CREATE FUNCTION catalog_search_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT \(fold) $$",
            """
            CREATE FUNCTION catalog_search_words(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $$ SELECT regexp_replace(\(fold), '[!-/:-@[-`{-~]+', ' ', 'g') $$
            """,
        ]
    }()

    /// Each searched table's `search_vector` (`PostgresSearchIndex`), generated from its row, so that every statement
    /// writing a row keeps it, and indexed; computed here once for the rows already stored.
    static let searchVectors: [String] = {
        let tables: [(String, PostgresSearchIndex)] = [("products", .products), ("films", .films), ("categories", .categories)]
        return searchFunctions
            + tables.flatMap { table, index in
                [
                    "ALTER TABLE \(table) ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (\(index.vectorExpression)) STORED",
                    "CREATE INDEX \(table)_search ON \(table) USING gin (search_vector)",
                ]
            }
    }()

    /// `product_words` (`PostgresSearchIndex.wordsTable`): each word of each product's `search_vector`, with the best
    /// rank it holds there and the product's `row_order`, filled here for the rows already stored and kept by
    /// statement-level triggers in every transaction that writes products, as the derived counts are. A row whose
    /// vector an update leaves as it was keeps its entries: a price change writes none, an unchanged import nothing.
    static let productWords: [String] = {
        let entries = PostgresSearchIndex.products.wordEntries
        let changed = { (rows: String, others: String) in
            "NOT EXISTS (SELECT 1 FROM \(others) WHERE \(others).row_order = \(rows).row_order AND \(others).search_vector = \(rows).search_vector)"
        }
        // In the key's order, which takes a first import of a million products from 658 s to 568 s: its 25 million
        // entries go into a key far larger than the server's buffers.
        let into = "INSERT INTO product_words (word, rank, product_order)"
        let insert = { (rows: String, condition: String) in "\(into) \(entries(rows)) \(condition) ORDER BY 1, 2, 3" }
        let delete = { (rows: String, condition: String) in
            """
            DELETE FROM product_words USING (\(entries(rows)) \(condition)) AS gone (word, rank, product_order)
            WHERE (product_words.word, product_words.rank, product_words.product_order) = (gone.word, gone.rank, gone.product_order)
            """
        }
        return [
            """
            CREATE TABLE product_words (
                word TEXT COLLATE "C" NOT NULL,
                rank SMALLINT NOT NULL,
                product_order BIGINT NOT NULL
            )
            """,
            // Keyed after it is filled: sorting a million products' words once is faster than keeping a key in order.
            "\(into) \(entries("products"))",
            "ALTER TABLE product_words ADD PRIMARY KEY (word, rank, product_order)",
            """
            CREATE FUNCTION product_words_added() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN \(insert("new_products", "")); RETURN NULL; END $$
            """,
            """
            CREATE FUNCTION product_words_removed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN \(delete("old_products", "")); RETURN NULL; END $$
            """,
            """
            CREATE FUNCTION product_words_moved() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                \(delete("old_products", "WHERE " + changed("old_products", "new_products")));
                \(insert("new_products", "WHERE " + changed("new_products", "old_products")));
                RETURN NULL;
            END $$
            """,
        ] + transitionTriggers(on: "products", rows: "products", named: "words", calling: "product_words")
    }()

    /// `product_word_counts` (`PostgresSearchIndex.wordCountsTable`): how many entries `product_words` holds of each
    /// word, which is how many products hold it, filled here and kept by statement-level triggers on `product_words`
    /// in the transaction of every write, as the derived counts are; a word no product holds any longer keeps a
    /// count of 0. Each statement updates the counts of its words in their order, under the history lock that every
    /// write takes (`PostgresLock.history`).
    static let productWordCounts: [String] = {
        let upsert = { (changes: String) in
            """
            INSERT INTO product_word_counts (word, products) \(changes) ORDER BY 1
            ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products
            """
        }
        let changes = [
            ("added", "SELECT word, COUNT(*) FROM new_entries GROUP BY word"),
            ("removed", "SELECT word, -COUNT(*) FROM old_entries GROUP BY word"),
            (
                "moved",
                "SELECT word, SUM(change) FROM (SELECT word, 1 AS change FROM new_entries UNION ALL SELECT word, -1 FROM old_entries) AS changed GROUP BY word"
            ),
        ]
        return [
            #"CREATE TABLE product_word_counts (word TEXT COLLATE "C" PRIMARY KEY, products BIGINT NOT NULL)"#,
            "INSERT INTO product_word_counts (word, products) SELECT word, COUNT(*) FROM product_words GROUP BY word",
        ]
            + changes.map { name, change in
                "CREATE FUNCTION product_word_counts_\(name)() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \(upsert(change)); RETURN NULL; END $$"
            } + transitionTriggers(on: "product_words", rows: "entries", named: "counts", calling: "product_word_counts")
    }()

    /// The statements of a script whose statements end with `;` and a line break.
    static func statements(_ script: String) -> [String] {
        script.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// Applies the pending migrations; returns the applied ones, oldest first.
    @discardableResult
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        try await connection.transaction(.write, logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresLock.migrations))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS catalogd_migrations (identifier TEXT PRIMARY KEY, applied_at TEXT NOT NULL)", logger: logger)
            var applied = try await appliedMigrations(connection, logger: logger)
            for migration in migrations where !applied.contains(migration.identifier) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO catalogd_migrations (identifier, applied_at) VALUES (\(migration.identifier), \(Timestamp.now()))",
                    logger: logger)
                applied.append(migration.identifier)
                logger.info("store migrated: \(migration.identifier)", metadata: ["store.migration": "\(migration.identifier)"])
            }
            return applied
        }
    }

    static func appliedMigrations(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        var identifiers: [String] = []
        for try await identifier in try await connection.query(
            "SELECT identifier FROM catalogd_migrations ORDER BY identifier", logger: logger
        ).decode(String.self) {
            identifiers.append(identifier)
        }
        return identifiers
    }

    static let version1 = """
        CREATE TABLE films (
            episode_id BIGINT PRIMARY KEY,
            title TEXT COLLATE "C" NOT NULL,
            opening_crawl TEXT NOT NULL,
            director TEXT COLLATE "C" NOT NULL,
            producer TEXT NOT NULL,
            release_date TEXT COLLATE "C" NOT NULL,
            created TEXT NOT NULL,
            edited TEXT NOT NULL,
            source_url TEXT NOT NULL,
            \(FilmLinkKind.allCases.map { "\($0.countColumn) BIGINT NOT NULL DEFAULT 0," }.joined(separator: "\n    "))
            source TEXT NOT NULL,
            changed_seq BIGINT NOT NULL
        );
        CREATE INDEX films_by_title ON films(title, episode_id);
        CREATE INDEX films_by_release_date ON films(release_date, episode_id);

        CREATE TABLE film_links (
            episode_id BIGINT NOT NULL REFERENCES films(episode_id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN (\(FilmLinkKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")))),
            position BIGINT NOT NULL,
            url TEXT NOT NULL,
            PRIMARY KEY (episode_id, kind, position)
        );

        CREATE TABLE products (
            serial_code TEXT COLLATE "C" PRIMARY KEY,
            name TEXT COLLATE "C" NOT NULL,
            description TEXT NOT NULL,
            category TEXT COLLATE "C" NOT NULL,
            brand TEXT NOT NULL,
            price TEXT NOT NULL,
            price_micros BIGINT NOT NULL,
            stock BIGINT NOT NULL,
            updated_at TEXT COLLATE "C" NOT NULL,
            source_url TEXT NOT NULL,
            source TEXT NOT NULL,
            changed_seq BIGINT NOT NULL
        );
        CREATE INDEX products_by_category ON products(category, serial_code);
        CREATE INDEX products_by_price ON products(price_micros, serial_code);
        CREATE INDEX products_by_name ON products(name, serial_code);
        CREATE INDEX products_by_source ON products(source);

        CREATE TABLE categories (
            name TEXT COLLATE "C" PRIMARY KEY,
            product_count BIGINT NOT NULL
        );

        -- One row per inserted, updated or deleted row; seq is the change token clients resume from. Seqs are
        -- taken under the history lock (PostgresLock.history), so they grow in commit order without gaps.
        CREATE TABLE changes (
            seq BIGINT PRIMARY KEY,
            entity TEXT NOT NULL,
            key TEXT NOT NULL,
            op TEXT NOT NULL,
            author TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX changes_by_entity ON changes(entity, seq);
        CREATE INDEX changes_by_time ON changes(at);

        -- The newest seq ever given, which pruning the history never lowers.
        CREATE TABLE history_state (
            only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
            last_seq BIGINT NOT NULL
        );
        INSERT INTO history_state (last_seq) VALUES (0);

        -- The version of each resource family, for ETags; moved once per write transaction that changed it.
        CREATE TABLE versions (
            name TEXT PRIMARY KEY,
            version BIGINT NOT NULL
        );
        INSERT INTO versions (name, version) VALUES ('films', 0), ('products', 0), ('imports', 0);

        CREATE TABLE imports (
            id BIGSERIAL PRIMARY KEY,
            source TEXT NOT NULL,
            status TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            fetched BIGINT NOT NULL DEFAULT 0,
            inserted BIGINT NOT NULL DEFAULT 0,
            updated BIGINT NOT NULL DEFAULT 0,
            unchanged BIGINT NOT NULL DEFAULT 0,
            deleted BIGINT NOT NULL DEFAULT 0,
            rejected BIGINT NOT NULL DEFAULT 0,
            error TEXT
        );
        CREATE INDEX imports_by_source_status ON imports(source, status, finished_at);

        CREATE TABLE import_rejections (
            import_id BIGINT NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
            position BIGINT NOT NULL,
            record_index BIGINT NOT NULL,
            key TEXT,
            reason TEXT NOT NULL,
            PRIMARY KEY (import_id, position)
        );

        -- What the upstream said about each page of the last successful run, for conditional requests.
        CREATE TABLE feed_pages (
            source TEXT NOT NULL,
            url TEXT NOT NULL,
            etag TEXT,
            last_modified TEXT,
            next_url TEXT,
            total BIGINT,
            records BIGINT NOT NULL,
            PRIMARY KEY (source, url)
        );

        -- Listings too big for memory, staged by import runs until they are applied; throwaway, so not logged.
        CREATE UNLOGGED TABLE staged_products (
            staging_id TEXT NOT NULL,
            serial_code TEXT COLLATE "C" NOT NULL,
            position BIGINT NOT NULL,
            name TEXT NOT NULL,
            description TEXT NOT NULL,
            category TEXT NOT NULL,
            brand TEXT NOT NULL,
            price TEXT NOT NULL,
            price_micros BIGINT NOT NULL,
            stock BIGINT NOT NULL,
            updated_at TEXT NOT NULL,
            source_url TEXT NOT NULL,
            PRIMARY KEY (staging_id, serial_code)
        );
        """

    static let filmLinkCountTriggers: [String] = {
        /// `character_count = character_count + n.characters, …` over an aggregate named `n`.
        func adjustments(_ sign: String) -> String {
            FilmLinkKind.allCases.map { "\($0.countColumn) = films.\($0.countColumn) \(sign) n.\($0.rawValue)" }.joined(separator: ", ")
        }
        let perKind = FilmLinkKind.allCases.map { "COUNT(*) FILTER (WHERE kind = '\($0.rawValue)') AS \($0.rawValue)" }.joined(separator: ", ")
        func apply(_ rows: String, _ sign: String) -> String {
            """
            UPDATE films SET \(adjustments(sign))
                FROM (SELECT episode_id, \(perKind) FROM \(rows) GROUP BY episode_id) AS n WHERE films.episode_id = n.episode_id;
            """
        }
        return [
            "CREATE FUNCTION film_links_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \(apply("new_links", "+")) RETURN NULL; END $$",
            "CREATE FUNCTION film_links_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \(apply("old_links", "-")) RETURN NULL; END $$",
            """
            CREATE FUNCTION film_links_moved() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN \(apply("old_links", "-")) \(apply("new_links", "+")) RETURN NULL; END $$
            """,
        ] + countTriggers(on: "film_links", rows: "links")
    }()

    /// Each category's products in stock, kept with its products (`in_stock` is counted without reading the
    /// products), and the indexes of the `stock` and `updated_at` orderings. The functions the triggers call take
    /// each moved product's category and whether it is in stock, in one pass over the transition table.
    static let inStockCounts: [String] = [
        "ALTER TABLE categories ADD COLUMN in_stock_count BIGINT NOT NULL DEFAULT 0",
        "UPDATE categories SET in_stock_count = (SELECT COUNT(*) FROM products WHERE category = categories.name AND stock > 0)",
        """
        CREATE FUNCTION categories_add(moved TEXT[], stocked BOOLEAN[]) RETURNS void LANGUAGE sql AS $$
            INSERT INTO categories (name, product_count, in_stock_count)
                SELECT name, COUNT(*), COUNT(*) FILTER (WHERE in_stock) FROM unnest(moved, stocked) AS n(name, in_stock) GROUP BY name
                ON CONFLICT (name) DO UPDATE SET product_count = categories.product_count + excluded.product_count,
                    in_stock_count = categories.in_stock_count + excluded.in_stock_count;
        $$
        """,
        """
        CREATE FUNCTION categories_remove(moved TEXT[], stocked BOOLEAN[]) RETURNS void LANGUAGE sql AS $$
            UPDATE categories SET product_count = categories.product_count - n.count, in_stock_count = categories.in_stock_count - n.in_stock
                FROM (SELECT name, COUNT(*) AS count, COUNT(*) FILTER (WHERE in_stock) AS in_stock FROM unnest(moved, stocked) AS n(name, in_stock)
                    GROUP BY name) AS n
                WHERE categories.name = n.name;
            DELETE FROM categories WHERE product_count <= 0 AND name = ANY(moved);
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION products_added() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM categories_add(array_agg(category), array_agg(stock > 0)) FROM new_products; RETURN NULL; END $$
        """,
        """
        CREATE OR REPLACE FUNCTION products_removed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM categories_remove(array_agg(category), array_agg(stock > 0)) FROM old_products; RETURN NULL; END $$
        """,
        """
        CREATE OR REPLACE FUNCTION products_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM categories_remove(array_agg(category), array_agg(stock > 0)) FROM old_products;
            PERFORM categories_add(array_agg(category), array_agg(stock > 0)) FROM new_products;
            RETURN NULL;
        END $$
        """,
        "DROP FUNCTION categories_add(TEXT[])",
        "DROP FUNCTION categories_remove(TEXT[])",
        "CREATE INDEX products_by_stock ON products(stock, serial_code)",
        "CREATE INDEX products_by_updated_at ON products(updated_at, serial_code)",
    ]

    /// Categories exist while they have products: the last product leaving one removes it.
    static let categoryCountTriggers =
        [
            """
            CREATE FUNCTION categories_add(moved TEXT[]) RETURNS void LANGUAGE sql AS $$
                INSERT INTO categories (name, product_count)
                    SELECT name, COUNT(*) FROM unnest(moved) AS name GROUP BY name
                    ON CONFLICT (name) DO UPDATE SET product_count = categories.product_count + excluded.product_count;
            $$
            """,
            """
            CREATE FUNCTION categories_remove(moved TEXT[]) RETURNS void LANGUAGE sql AS $$
                UPDATE categories SET product_count = categories.product_count - n.count
                    FROM (SELECT name, COUNT(*) AS count FROM unnest(moved) AS name GROUP BY name) AS n WHERE categories.name = n.name;
                DELETE FROM categories WHERE product_count <= 0 AND name = ANY(moved);
            $$
            """,
            """
            CREATE FUNCTION products_added() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM categories_add(ARRAY(SELECT category FROM new_products)); RETURN NULL; END $$
            """,
            """
            CREATE FUNCTION products_removed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM categories_remove(ARRAY(SELECT category FROM old_products)); RETURN NULL; END $$
            """,
            """
            CREATE FUNCTION products_moved() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM categories_remove(ARRAY(SELECT category FROM old_products));
                PERFORM categories_add(ARRAY(SELECT category FROM new_products));
                RETURN NULL;
            END $$
            """,
        ] + countTriggers(on: "products", rows: "products")

    /// The three statement-level triggers that keep a table's derived counts: `TABLE_added` after inserts (new rows
    /// as `new_ROWS`), `TABLE_removed` after deletes (`old_ROWS`) and `TABLE_moved` after updates (both).
    static func countTriggers(on table: String, rows: String) -> [String] {
        transitionTriggers(on: table, rows: rows, named: "count", calling: table)
    }

    /// Three statement-level triggers on `table`, `TABLE_NAME_insert`, `_delete` and `_update`, that call
    /// `FUNCTIONS_added()`, `_removed()` and `_moved()` with the new rows as `new_ROWS` and the old as `old_ROWS`.
    static func transitionTriggers(on table: String, rows: String, named name: String, calling functions: String) -> [String] {
        [
            ("insert", "INSERT", "NEW TABLE AS new_\(rows)", "added"),
            ("delete", "DELETE", "OLD TABLE AS old_\(rows)", "removed"),
            ("update", "UPDATE", "OLD TABLE AS old_\(rows) NEW TABLE AS new_\(rows)", "moved"),
        ].map { event, verb, transitions, function in
            """
            CREATE TRIGGER \(table)_\(name)_\(event) AFTER \(verb) ON \(table)
                REFERENCING \(transitions) FOR EACH STATEMENT EXECUTE FUNCTION \(functions)_\(function)()
            """
        }
    }
}
