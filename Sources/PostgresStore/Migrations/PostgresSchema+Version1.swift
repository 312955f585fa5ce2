extension PostgresSchema {
    /// Migration v1: films with their links, products, categories, the history, versions, import reports and staged
    /// listings.
    ///
    /// Derived counts are kept by statement-level triggers over transition tables: one aggregate update per statement,
    /// whatever statement writes the rows. A film's five link counts move with its links; categories exist while they
    /// have products, and the last product leaving one removes it.
    static let version1: [String] = [
        """
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
            character_count BIGINT NOT NULL DEFAULT 0,
            planet_count BIGINT NOT NULL DEFAULT 0,
            starship_count BIGINT NOT NULL DEFAULT 0,
            vehicle_count BIGINT NOT NULL DEFAULT 0,
            species_count BIGINT NOT NULL DEFAULT 0,
            source TEXT NOT NULL,
            changed_seq BIGINT NOT NULL
        )
        """,
        "CREATE INDEX films_by_title ON films(title, episode_id)",
        "CREATE INDEX films_by_release_date ON films(release_date, episode_id)",
        """
        CREATE TABLE film_links (
            episode_id BIGINT NOT NULL REFERENCES films(episode_id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('characters', 'planets', 'starships', 'vehicles', 'species')),
            position BIGINT NOT NULL,
            url TEXT NOT NULL,
            PRIMARY KEY (episode_id, kind, position)
        )
        """,
        """
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
        )
        """,
        "CREATE INDEX products_by_category ON products(category, serial_code)",
        "CREATE INDEX products_by_price ON products(price_micros, serial_code)",
        "CREATE INDEX products_by_name ON products(name, serial_code)",
        "CREATE INDEX products_by_source ON products(source)",
        """
        CREATE TABLE categories (
            name TEXT COLLATE "C" PRIMARY KEY,
            product_count BIGINT NOT NULL
        )
        """,
        """
        -- One row per inserted, updated or deleted row; seq is the change token clients resume from. Seqs are
        -- taken under the history lock (PostgresLock.history), so they grow in commit order without gaps.
        CREATE TABLE changes (
            seq BIGINT PRIMARY KEY,
            entity TEXT NOT NULL,
            key TEXT NOT NULL,
            op TEXT NOT NULL,
            author TEXT NOT NULL,
            at TEXT NOT NULL
        )
        """,
        "CREATE INDEX changes_by_entity ON changes(entity, seq)",
        "CREATE INDEX changes_by_time ON changes(at)",
        """
        -- The newest seq ever given, which pruning the history never lowers.
        CREATE TABLE history_state (
            only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
            last_seq BIGINT NOT NULL
        )
        """,
        "INSERT INTO history_state (last_seq) VALUES (0)",
        """
        -- The version of each resource family, for ETags; moved once per write transaction that changed it.
        CREATE TABLE versions (
            name TEXT PRIMARY KEY,
            version BIGINT NOT NULL
        )
        """,
        "INSERT INTO versions (name, version) VALUES ('films', 0), ('products', 0), ('imports', 0)",
        """
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
        )
        """,
        "CREATE INDEX imports_by_source_status ON imports(source, status, finished_at)",
        """
        CREATE TABLE import_rejections (
            import_id BIGINT NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
            position BIGINT NOT NULL,
            record_index BIGINT NOT NULL,
            key TEXT,
            reason TEXT NOT NULL,
            PRIMARY KEY (import_id, position)
        )
        """,
        """
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
        )
        """,
        """
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
        """,
        """
        CREATE FUNCTION film_links_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE films SET character_count = films.character_count + n.characters, planet_count = films.planet_count + n.planets, starship_count = films.starship_count + n.starships, vehicle_count = films.vehicle_count + n.vehicles, species_count = films.species_count + n.species
            FROM (SELECT episode_id, COUNT(*) FILTER (WHERE kind = 'characters') AS characters, COUNT(*) FILTER (WHERE kind = 'planets') AS planets, COUNT(*) FILTER (WHERE kind = 'starships') AS starships, COUNT(*) FILTER (WHERE kind = 'vehicles') AS vehicles, COUNT(*) FILTER (WHERE kind = 'species') AS species FROM new_links GROUP BY episode_id) AS n WHERE films.episode_id = n.episode_id; RETURN NULL; END $$
        """,
        """
        CREATE FUNCTION film_links_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE films SET character_count = films.character_count - n.characters, planet_count = films.planet_count - n.planets, starship_count = films.starship_count - n.starships, vehicle_count = films.vehicle_count - n.vehicles, species_count = films.species_count - n.species
            FROM (SELECT episode_id, COUNT(*) FILTER (WHERE kind = 'characters') AS characters, COUNT(*) FILTER (WHERE kind = 'planets') AS planets, COUNT(*) FILTER (WHERE kind = 'starships') AS starships, COUNT(*) FILTER (WHERE kind = 'vehicles') AS vehicles, COUNT(*) FILTER (WHERE kind = 'species') AS species FROM old_links GROUP BY episode_id) AS n WHERE films.episode_id = n.episode_id; RETURN NULL; END $$
        """,
        """
        CREATE FUNCTION film_links_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE films SET character_count = films.character_count - n.characters, planet_count = films.planet_count - n.planets, starship_count = films.starship_count - n.starships, vehicle_count = films.vehicle_count - n.vehicles, species_count = films.species_count - n.species
            FROM (SELECT episode_id, COUNT(*) FILTER (WHERE kind = 'characters') AS characters, COUNT(*) FILTER (WHERE kind = 'planets') AS planets, COUNT(*) FILTER (WHERE kind = 'starships') AS starships, COUNT(*) FILTER (WHERE kind = 'vehicles') AS vehicles, COUNT(*) FILTER (WHERE kind = 'species') AS species FROM old_links GROUP BY episode_id) AS n WHERE films.episode_id = n.episode_id; UPDATE films SET character_count = films.character_count + n.characters, planet_count = films.planet_count + n.planets, starship_count = films.starship_count + n.starships, vehicle_count = films.vehicle_count + n.vehicles, species_count = films.species_count + n.species
            FROM (SELECT episode_id, COUNT(*) FILTER (WHERE kind = 'characters') AS characters, COUNT(*) FILTER (WHERE kind = 'planets') AS planets, COUNT(*) FILTER (WHERE kind = 'starships') AS starships, COUNT(*) FILTER (WHERE kind = 'vehicles') AS vehicles, COUNT(*) FILTER (WHERE kind = 'species') AS species FROM new_links GROUP BY episode_id) AS n WHERE films.episode_id = n.episode_id; RETURN NULL; END $$
        """,
        """
        CREATE TRIGGER film_links_count_insert AFTER INSERT ON film_links
            REFERENCING NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION film_links_added()
        """,
        """
        CREATE TRIGGER film_links_count_delete AFTER DELETE ON film_links
            REFERENCING OLD TABLE AS old_links FOR EACH STATEMENT EXECUTE FUNCTION film_links_removed()
        """,
        """
        CREATE TRIGGER film_links_count_update AFTER UPDATE ON film_links
            REFERENCING OLD TABLE AS old_links NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION film_links_moved()
        """,
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
        """
        CREATE TRIGGER products_count_insert AFTER INSERT ON products
            REFERENCING NEW TABLE AS new_products FOR EACH STATEMENT EXECUTE FUNCTION products_added()
        """,
        """
        CREATE TRIGGER products_count_delete AFTER DELETE ON products
            REFERENCING OLD TABLE AS old_products FOR EACH STATEMENT EXECUTE FUNCTION products_removed()
        """,
        """
        CREATE TRIGGER products_count_update AFTER UPDATE ON products
            REFERENCING OLD TABLE AS old_products NEW TABLE AS new_products FOR EACH STATEMENT EXECUTE FUNCTION products_moved()
        """,
    ]
}
