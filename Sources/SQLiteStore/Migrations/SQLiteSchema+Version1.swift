extension SQLiteSchema {
    /// Migration v1: films with their links, products, categories, the history, versions and import reports.
    ///
    /// Derived counts are kept by triggers so that they stay true whichever statement writes the rows: the store's own
    /// upserts, a cascade, or SQL typed by hand. A film's five link counts move with its links; categories exist while
    /// they have products, and the last product leaving one removes it.
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

        CREATE TRIGGER film_links_count_insert AFTER INSERT ON film_links BEGIN
            UPDATE films SET character_count = character_count + (NEW.kind = 'characters'), planet_count = planet_count + (NEW.kind = 'planets'), starship_count = starship_count + (NEW.kind = 'starships'), vehicle_count = vehicle_count + (NEW.kind = 'vehicles'), species_count = species_count + (NEW.kind = 'species') WHERE episode_id = NEW.episode_id;
        END;
        CREATE TRIGGER film_links_count_delete AFTER DELETE ON film_links BEGIN
            UPDATE films SET character_count = character_count - (OLD.kind = 'characters'), planet_count = planet_count - (OLD.kind = 'planets'), starship_count = starship_count - (OLD.kind = 'starships'), vehicle_count = vehicle_count - (OLD.kind = 'vehicles'), species_count = species_count - (OLD.kind = 'species') WHERE episode_id = OLD.episode_id;
        END;
        CREATE TRIGGER film_links_count_update AFTER UPDATE OF episode_id, kind ON film_links BEGIN
            UPDATE films SET character_count = character_count - (OLD.kind = 'characters'), planet_count = planet_count - (OLD.kind = 'planets'), starship_count = starship_count - (OLD.kind = 'starships'), vehicle_count = vehicle_count - (OLD.kind = 'vehicles'), species_count = species_count - (OLD.kind = 'species') WHERE episode_id = OLD.episode_id;
            UPDATE films SET character_count = character_count + (NEW.kind = 'characters'), planet_count = planet_count + (NEW.kind = 'planets'), starship_count = starship_count + (NEW.kind = 'starships'), vehicle_count = vehicle_count + (NEW.kind = 'vehicles'), species_count = species_count + (NEW.kind = 'species') WHERE episode_id = NEW.episode_id;
        END;

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
