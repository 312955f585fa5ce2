extension PostgresSchema {
    /// Migration v17: `product_word_runs` (`PostgresSearchIndex.wordRunsTable`) in place of `product_words`: the same
    /// entries, each word's products of each rank kept as runs of at most 200 `row_order`s in order, one row per run,
    /// keyed by the word, the rank and the run's first order. A million products' 25 million entries are about 220,000
    /// rows and 250 MB with their key, against 2,035 MB for `product_words` and its key, and a word's page is still
    /// read in page order from the key, each run's orders in order within it. The migration takes the history lock
    /// (`PostgresLock.history`, 7161132844275689218) before it copies the words: a replica of an earlier catalogd
    /// writing meanwhile would lose its words.
    ///
    /// The products' statement-level triggers rewrite the runs a statement's words touch: each added or removed entry
    /// belongs to the last run of its word and rank that starts at or before it (the first run when none does), found
    /// by sorting the entries with the starts of the runs between their word's lowest and highest (a lookup of the
    /// key for each entry took 14 µs, 7 s for the 500,000 words of 20,000 products), and
    /// each run touched is deleted and written again with its orders after the change, split into as few runs of
    /// equal length as hold 200 at most (a full run that gains one becomes two of about 100, not 200 and 1, so that
    /// additions into it do not leave a run of one each time). Runs are never merged: deletions leave shorter runs.
    /// Each function first takes the history lock, which catalogd's own writes hold already: a run is written again
    /// whole, so two statements rewriting the same run at once would lose one's change, and a statement typed by hand
    /// waits for catalogd's writes as they wait for each other. (A lock on the table would wait for autovacuum too.) A run's orders after the change are its orders but the removed
    /// ones (`EXCEPT`, which hashes: a run losing most of its orders compared each with each took seconds for a
    /// thousand deletions) and the added ones, sorted. The counts (`product_word_counts`) are kept in the same
    /// statement, as since v16.
    static let wordRuns: [String] = [
        "SELECT pg_advisory_xact_lock(7161132844275689218)",
        """
        CREATE TABLE product_word_runs (
            word TEXT COLLATE "C" NOT NULL,
            rank SMALLINT NOT NULL,
            first_order BIGINT NOT NULL,
            orders BIGINT[] NOT NULL
        )
        """,
        """
        INSERT INTO product_word_runs (word, rank, first_order, orders)
        SELECT word, rank, MIN(product_order), array_agg(product_order ORDER BY product_order) FROM (
            SELECT word, rank, product_order, (row_number() OVER (PARTITION BY word, rank ORDER BY product_order) - 1) / 200 AS part FROM product_words
        ) AS numbered GROUP BY word, rank, part
        """,
        "ALTER TABLE product_word_runs ADD PRIMARY KEY (word, rank, first_order)",
        "DROP TABLE product_words",
        """
        CREATE OR REPLACE FUNCTION product_words_added() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_advisory_xact_lock(7161132844275689218);
            WITH gone AS MATERIALIZED (
                SELECT NULL::text AS word, NULL::integer AS rank, NULL::bigint AS product_order WHERE false
            ), came AS MATERIALIZED (
                SELECT word.lexeme AS word, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END AS rank, new_products.row_order AS product_order FROM new_products, unnest(new_products.search_vector) AS word
            ), changed AS MATERIALIZED (
                SELECT word, rank, product_order, false AS added FROM gone UNION ALL SELECT word, rank, product_order, true FROM came
            ), starts AS MATERIALIZED (
                SELECT spans.word, spans.rank, run.first_order FROM (
                    SELECT word, rank, MIN(product_order) AS low, MAX(product_order) AS high FROM changed GROUP BY word, rank
                ) AS spans, LATERAL (
                    SELECT first_order FROM product_word_runs AS run WHERE run.word = spans.word AND run.rank = spans.rank AND run.first_order <= spans.high
                    AND run.first_order >= COALESCE((SELECT MAX(first_order) FROM product_word_runs AS before WHERE before.word = spans.word AND before.rank = spans.rank AND before.first_order <= spans.low), -1)
                    UNION SELECT MIN(first_order) FROM product_word_runs AS run WHERE run.word = spans.word AND run.rank = spans.rank
                ) AS run WHERE run.first_order IS NOT NULL
            ), located AS MATERIALIZED (
                SELECT word, rank, product_order, added, COALESCE(run_start, first_start) AS first_order FROM (
                    SELECT word, rank, position AS product_order, added, is_entry,
                        MAX(start) OVER (PARTITION BY word, rank ORDER BY position, is_entry ROWS UNBOUNDED PRECEDING) AS run_start,
                        MIN(start) OVER (PARTITION BY word, rank) AS first_start
                    FROM (
                        SELECT word, rank, first_order AS position, first_order AS start, false AS is_entry, NULL::boolean AS added FROM starts
                        UNION ALL SELECT word, rank, product_order, NULL, true, added FROM changed
                    ) AS merged
                ) AS placed WHERE is_entry
            ), touched AS MATERIALIZED (
                SELECT word, rank, first_order, array_agg(product_order) FILTER (WHERE NOT added) AS removed, array_agg(product_order) FILTER (WHERE added) AS added
                FROM located GROUP BY word, rank, first_order
            ), rewritten AS MATERIALIZED (
                DELETE FROM product_word_runs AS run USING touched
                WHERE (run.word, run.rank, run.first_order) = (touched.word, touched.rank, touched.first_order)
                RETURNING run.word, run.rank, run.first_order, run.orders
            ), merged AS MATERIALIZED (
                SELECT touched.word, touched.rank, ARRAY(
                    SELECT unnest(rewritten.orders) EXCEPT SELECT unnest(touched.removed)
                    UNION ALL SELECT unnest(touched.added) ORDER BY 1
                ) AS orders
                FROM touched LEFT JOIN rewritten ON (rewritten.word, rewritten.rank, rewritten.first_order) = (touched.word, touched.rank, touched.first_order)
            ), runs AS (
                INSERT INTO product_word_runs (word, rank, first_order, orders)
                SELECT word, rank, orders[start], orders[start:start + parts.length - 1]
                FROM merged, LATERAL (SELECT GREATEST(CEIL(cardinality(orders) / GREATEST(CEIL(cardinality(orders) / 200.0), 1)), 1)::integer AS length) AS parts,
                    generate_series(1, cardinality(orders), parts.length) AS start
                ORDER BY 1, 2, 3
            )
            INSERT INTO product_word_counts (word, products)
                SELECT word, SUM(change) FROM (SELECT word, 1 AS change FROM came UNION ALL SELECT word, -1 FROM gone) AS counted
                GROUP BY word HAVING SUM(change) <> 0 ORDER BY 1
            ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products;
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION product_words_removed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_advisory_xact_lock(7161132844275689218);
            WITH gone AS MATERIALIZED (
                SELECT word.lexeme AS word, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END AS rank, old_products.row_order AS product_order FROM old_products, unnest(old_products.search_vector) AS word
            ), came AS MATERIALIZED (
                SELECT NULL::text AS word, NULL::integer AS rank, NULL::bigint AS product_order WHERE false
            ), changed AS MATERIALIZED (
                SELECT word, rank, product_order, false AS added FROM gone UNION ALL SELECT word, rank, product_order, true FROM came
            ), starts AS MATERIALIZED (
                SELECT spans.word, spans.rank, run.first_order FROM (
                    SELECT word, rank, MIN(product_order) AS low, MAX(product_order) AS high FROM changed GROUP BY word, rank
                ) AS spans, LATERAL (
                    SELECT first_order FROM product_word_runs AS run WHERE run.word = spans.word AND run.rank = spans.rank AND run.first_order <= spans.high
                    AND run.first_order >= COALESCE((SELECT MAX(first_order) FROM product_word_runs AS before WHERE before.word = spans.word AND before.rank = spans.rank AND before.first_order <= spans.low), -1)
                    UNION SELECT MIN(first_order) FROM product_word_runs AS run WHERE run.word = spans.word AND run.rank = spans.rank
                ) AS run WHERE run.first_order IS NOT NULL
            ), located AS MATERIALIZED (
                SELECT word, rank, product_order, added, COALESCE(run_start, first_start) AS first_order FROM (
                    SELECT word, rank, position AS product_order, added, is_entry,
                        MAX(start) OVER (PARTITION BY word, rank ORDER BY position, is_entry ROWS UNBOUNDED PRECEDING) AS run_start,
                        MIN(start) OVER (PARTITION BY word, rank) AS first_start
                    FROM (
                        SELECT word, rank, first_order AS position, first_order AS start, false AS is_entry, NULL::boolean AS added FROM starts
                        UNION ALL SELECT word, rank, product_order, NULL, true, added FROM changed
                    ) AS merged
                ) AS placed WHERE is_entry
            ), touched AS MATERIALIZED (
                SELECT word, rank, first_order, array_agg(product_order) FILTER (WHERE NOT added) AS removed, array_agg(product_order) FILTER (WHERE added) AS added
                FROM located GROUP BY word, rank, first_order
            ), rewritten AS MATERIALIZED (
                DELETE FROM product_word_runs AS run USING touched
                WHERE (run.word, run.rank, run.first_order) = (touched.word, touched.rank, touched.first_order)
                RETURNING run.word, run.rank, run.first_order, run.orders
            ), merged AS MATERIALIZED (
                SELECT touched.word, touched.rank, ARRAY(
                    SELECT unnest(rewritten.orders) EXCEPT SELECT unnest(touched.removed)
                    UNION ALL SELECT unnest(touched.added) ORDER BY 1
                ) AS orders
                FROM touched LEFT JOIN rewritten ON (rewritten.word, rewritten.rank, rewritten.first_order) = (touched.word, touched.rank, touched.first_order)
            ), runs AS (
                INSERT INTO product_word_runs (word, rank, first_order, orders)
                SELECT word, rank, orders[start], orders[start:start + parts.length - 1]
                FROM merged, LATERAL (SELECT GREATEST(CEIL(cardinality(orders) / GREATEST(CEIL(cardinality(orders) / 200.0), 1)), 1)::integer AS length) AS parts,
                    generate_series(1, cardinality(orders), parts.length) AS start
                ORDER BY 1, 2, 3
            )
            INSERT INTO product_word_counts (word, products)
                SELECT word, SUM(change) FROM (SELECT word, 1 AS change FROM came UNION ALL SELECT word, -1 FROM gone) AS counted
                GROUP BY word HAVING SUM(change) <> 0 ORDER BY 1
            ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products;
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION product_words_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_advisory_xact_lock(7161132844275689218);
            WITH old_entries AS MATERIALIZED (
                SELECT word.lexeme AS word, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END AS rank, old_products.row_order AS product_order FROM old_products, unnest(old_products.search_vector) AS word
            ), new_entries AS MATERIALIZED (
                SELECT word.lexeme AS word, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END AS rank, new_products.row_order AS product_order FROM new_products, unnest(new_products.search_vector) AS word
            ), gone AS MATERIALIZED (
                SELECT word, rank, product_order FROM old_entries EXCEPT SELECT word, rank, product_order FROM new_entries
            ), came AS MATERIALIZED (
                SELECT word, rank, product_order FROM new_entries EXCEPT SELECT word, rank, product_order FROM old_entries
            ), changed AS MATERIALIZED (
                SELECT word, rank, product_order, false AS added FROM gone UNION ALL SELECT word, rank, product_order, true FROM came
            ), starts AS MATERIALIZED (
                SELECT spans.word, spans.rank, run.first_order FROM (
                    SELECT word, rank, MIN(product_order) AS low, MAX(product_order) AS high FROM changed GROUP BY word, rank
                ) AS spans, LATERAL (
                    SELECT first_order FROM product_word_runs AS run WHERE run.word = spans.word AND run.rank = spans.rank AND run.first_order <= spans.high
                    AND run.first_order >= COALESCE((SELECT MAX(first_order) FROM product_word_runs AS before WHERE before.word = spans.word AND before.rank = spans.rank AND before.first_order <= spans.low), -1)
                    UNION SELECT MIN(first_order) FROM product_word_runs AS run WHERE run.word = spans.word AND run.rank = spans.rank
                ) AS run WHERE run.first_order IS NOT NULL
            ), located AS MATERIALIZED (
                SELECT word, rank, product_order, added, COALESCE(run_start, first_start) AS first_order FROM (
                    SELECT word, rank, position AS product_order, added, is_entry,
                        MAX(start) OVER (PARTITION BY word, rank ORDER BY position, is_entry ROWS UNBOUNDED PRECEDING) AS run_start,
                        MIN(start) OVER (PARTITION BY word, rank) AS first_start
                    FROM (
                        SELECT word, rank, first_order AS position, first_order AS start, false AS is_entry, NULL::boolean AS added FROM starts
                        UNION ALL SELECT word, rank, product_order, NULL, true, added FROM changed
                    ) AS merged
                ) AS placed WHERE is_entry
            ), touched AS MATERIALIZED (
                SELECT word, rank, first_order, array_agg(product_order) FILTER (WHERE NOT added) AS removed, array_agg(product_order) FILTER (WHERE added) AS added
                FROM located GROUP BY word, rank, first_order
            ), rewritten AS MATERIALIZED (
                DELETE FROM product_word_runs AS run USING touched
                WHERE (run.word, run.rank, run.first_order) = (touched.word, touched.rank, touched.first_order)
                RETURNING run.word, run.rank, run.first_order, run.orders
            ), merged AS MATERIALIZED (
                SELECT touched.word, touched.rank, ARRAY(
                    SELECT unnest(rewritten.orders) EXCEPT SELECT unnest(touched.removed)
                    UNION ALL SELECT unnest(touched.added) ORDER BY 1
                ) AS orders
                FROM touched LEFT JOIN rewritten ON (rewritten.word, rewritten.rank, rewritten.first_order) = (touched.word, touched.rank, touched.first_order)
            ), runs AS (
                INSERT INTO product_word_runs (word, rank, first_order, orders)
                SELECT word, rank, orders[start], orders[start:start + parts.length - 1]
                FROM merged, LATERAL (SELECT GREATEST(CEIL(cardinality(orders) / GREATEST(CEIL(cardinality(orders) / 200.0), 1)), 1)::integer AS length) AS parts,
                    generate_series(1, cardinality(orders), parts.length) AS start
                ORDER BY 1, 2, 3
            )
            INSERT INTO product_word_counts (word, products)
                SELECT word, SUM(change) FROM (SELECT word, 1 AS change FROM came UNION ALL SELECT word, -1 FROM gone) AS counted
                GROUP BY word HAVING SUM(change) <> 0 ORDER BY 1
            ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products;
            RETURN NULL;
        END $$
        """,
    ]
}
