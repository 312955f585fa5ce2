extension PostgresSchema {
    /// Migration v11: `product_word_counts` (`PostgresSearchIndex.wordCountsTable`), how many entries `product_words`
    /// holds of each word, which is how many products hold it, filled here and kept by statement-level triggers on
    /// `product_words` in the transaction of every write, as the derived counts are; a word no product holds any longer
    /// keeps a count of 0. Each statement updates the counts of its words in their order, under the history lock that
    /// every write takes (`PostgresLock.history`).
    static let productWordCounts: [String] = [
        #"CREATE TABLE product_word_counts (word TEXT COLLATE "C" PRIMARY KEY, products BIGINT NOT NULL)"#,
        "INSERT INTO product_word_counts (word, products) SELECT word, COUNT(*) FROM product_words GROUP BY word",
        """
        CREATE FUNCTION product_word_counts_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO product_word_counts (word, products) SELECT word, COUNT(*) FROM new_entries GROUP BY word ORDER BY 1
        ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products; RETURN NULL; END $$
        """,
        """
        CREATE FUNCTION product_word_counts_removed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO product_word_counts (word, products) SELECT word, -COUNT(*) FROM old_entries GROUP BY word ORDER BY 1
        ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products; RETURN NULL; END $$
        """,
        """
        CREATE FUNCTION product_word_counts_moved() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO product_word_counts (word, products) SELECT word, SUM(change) FROM (SELECT word, 1 AS change FROM new_entries UNION ALL SELECT word, -1 FROM old_entries) AS changed GROUP BY word ORDER BY 1
        ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products; RETURN NULL; END $$
        """,
        """
        CREATE TRIGGER product_words_counts_insert AFTER INSERT ON product_words
            REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION product_word_counts_added()
        """,
        """
        CREATE TRIGGER product_words_counts_delete AFTER DELETE ON product_words
            REFERENCING OLD TABLE AS old_entries FOR EACH STATEMENT EXECUTE FUNCTION product_word_counts_removed()
        """,
        """
        CREATE TRIGGER product_words_counts_update AFTER UPDATE ON product_words
            REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION product_word_counts_moved()
        """,
    ]
}
