extension PostgresSchema {
    /// Migration v16: a write of products keeps `product_word_counts` from the words it writes and removes itself, in
    /// the same statement as their entries of `product_words`, where v11's triggers on `product_words` aggregated
    /// a copy of every entry (the statement's transition table) a second time. The counts no longer depend on
    /// `product_words`, which is what lets a later migration drop that table and keep the counts.
    ///
    /// Each function reads the entries once (`MATERIALIZED`), writes or deletes them, and adds each word's change to
    /// its count, in the words' order, under the history lock every write of products takes (`PostgresLock.history`).
    /// A word no product holds any longer keeps a count of 0, as before; a word whose rank in a row changed counts
    /// +1 and -1, which is no change.
    static let wordCountsFromProducts: [String] = [
        "DROP TRIGGER product_words_counts_insert ON product_words",
        "DROP TRIGGER product_words_counts_delete ON product_words",
        "DROP TRIGGER product_words_counts_update ON product_words",
        "DROP FUNCTION product_word_counts_added()",
        "DROP FUNCTION product_word_counts_removed()",
        "DROP FUNCTION product_word_counts_moved()",
        """
        CREATE OR REPLACE FUNCTION product_words_added() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            WITH came AS MATERIALIZED (
                SELECT word.lexeme AS word, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END AS rank, new_products.row_order AS product_order FROM new_products, unnest(new_products.search_vector) AS word
            ), written AS (
                INSERT INTO product_words (word, rank, product_order) SELECT word, rank, product_order FROM came ORDER BY 1, 2, 3
            )
            INSERT INTO product_word_counts (word, products) SELECT word, COUNT(*) FROM came GROUP BY word ORDER BY 1
            ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products;
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION product_words_removed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            WITH gone AS MATERIALIZED (
                SELECT word.lexeme AS word, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END AS rank, old_products.row_order AS product_order FROM old_products, unnest(old_products.search_vector) AS word
            ), deleted AS (
                DELETE FROM product_words USING gone
                WHERE (product_words.word, product_words.rank, product_words.product_order) = (gone.word, gone.rank, gone.product_order)
            )
            INSERT INTO product_word_counts (word, products) SELECT word, -COUNT(*) FROM gone GROUP BY word ORDER BY 1
            ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products;
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION product_words_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            WITH old_entries AS MATERIALIZED (
                SELECT word.lexeme AS word, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END AS rank, old_products.row_order AS product_order FROM old_products, unnest(old_products.search_vector) AS word
            ), new_entries AS MATERIALIZED (
                SELECT word.lexeme AS word, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END AS rank, new_products.row_order AS product_order FROM new_products, unnest(new_products.search_vector) AS word
            ), gone AS MATERIALIZED (
                SELECT word, rank, product_order FROM old_entries EXCEPT SELECT word, rank, product_order FROM new_entries
            ), came AS MATERIALIZED (
                SELECT word, rank, product_order FROM new_entries EXCEPT SELECT word, rank, product_order FROM old_entries
            ), deleted AS (
                DELETE FROM product_words USING gone
                WHERE (product_words.word, product_words.rank, product_words.product_order) = (gone.word, gone.rank, gone.product_order)
            ), written AS (
                INSERT INTO product_words (word, rank, product_order) SELECT word, rank, product_order FROM came ORDER BY 1, 2, 3
            )
            INSERT INTO product_word_counts (word, products)
                SELECT word, SUM(change) FROM (SELECT word, 1 AS change FROM came UNION ALL SELECT word, -1 FROM gone) AS changed
                GROUP BY word HAVING SUM(change) <> 0 ORDER BY 1
            ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products;
            RETURN NULL;
        END $$
        """,
    ]
}
