extension PostgresSchema {
    /// Migration v10: `product_words` (`PostgresSearchIndex.wordsTable`), each word of each product's `search_vector`,
    /// with the best rank it holds there and the product's `row_order`, filled here for the rows already stored and kept
    /// by statement-level triggers in every transaction that writes products, as the derived counts are. A row whose
    /// vector an update leaves as it was keeps its entries: a price change writes none, an unchanged import nothing.
    ///
    /// The table is keyed after it is filled (sorting a million products' words once is faster than keeping a key in
    /// order), and the triggers insert in the key's order, which a key far larger than the server's buffers needs.
    static let productWords: [String] = [
        """
        CREATE TABLE product_words (
            word TEXT COLLATE "C" NOT NULL,
            rank SMALLINT NOT NULL,
            product_order BIGINT NOT NULL
        )
        """,
        """
        INSERT INTO product_words (word, rank, product_order) SELECT word.lexeme, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END, products.row_order FROM products, unnest(products.search_vector) AS word
        """,
        "ALTER TABLE product_words ADD PRIMARY KEY (word, rank, product_order)",
        """
        CREATE FUNCTION product_words_added() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO product_words (word, rank, product_order) SELECT word.lexeme, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END, new_products.row_order FROM new_products, unnest(new_products.search_vector) AS word  ORDER BY 1, 2, 3; RETURN NULL; END $$
        """,
        """
        CREATE FUNCTION product_words_removed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN DELETE FROM product_words USING (SELECT word.lexeme, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END, old_products.row_order FROM old_products, unnest(old_products.search_vector) AS word ) AS gone (word, rank, product_order)
        WHERE (product_words.word, product_words.rank, product_words.product_order) = (gone.word, gone.rank, gone.product_order); RETURN NULL; END $$
        """,
        """
        CREATE FUNCTION product_words_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM product_words USING (SELECT word.lexeme, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END, old_products.row_order FROM old_products, unnest(old_products.search_vector) AS word WHERE NOT EXISTS (SELECT 1 FROM new_products WHERE new_products.row_order = old_products.row_order AND new_products.search_vector = old_products.search_vector)) AS gone (word, rank, product_order)
        WHERE (product_words.word, product_words.rank, product_words.product_order) = (gone.word, gone.rank, gone.product_order);
            INSERT INTO product_words (word, rank, product_order) SELECT word.lexeme, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END, new_products.row_order FROM new_products, unnest(new_products.search_vector) AS word WHERE NOT EXISTS (SELECT 1 FROM old_products WHERE old_products.row_order = new_products.row_order AND old_products.search_vector = new_products.search_vector) ORDER BY 1, 2, 3;
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER products_words_insert AFTER INSERT ON products
            REFERENCING NEW TABLE AS new_products FOR EACH STATEMENT EXECUTE FUNCTION product_words_added()
        """,
        """
        CREATE TRIGGER products_words_delete AFTER DELETE ON products
            REFERENCING OLD TABLE AS old_products FOR EACH STATEMENT EXECUTE FUNCTION product_words_removed()
        """,
        """
        CREATE TRIGGER products_words_update AFTER UPDATE ON products
            REFERENCING OLD TABLE AS old_products NEW TABLE AS new_products FOR EACH STATEMENT EXECUTE FUNCTION product_words_moved()
        """,
    ]
}
