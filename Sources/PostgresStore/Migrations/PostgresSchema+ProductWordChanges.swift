extension PostgresSchema {
    /// Migration v13: an update of products changes only the entries of `product_words` that differ (v10's trigger
    /// deleted and wrote again every entry of a row whose vector changed). A product renamed by one word changes one
    /// or two of its 30 entries, not all of them: the update of one row took 9 ms, mostly the entries' random reads
    /// and writes of the table's key, which the counts then repeated.
    static let productWordChanges: [String] = [
        """
        CREATE OR REPLACE FUNCTION product_words_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM product_words USING (
                SELECT word.lexeme, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END, old_products.row_order FROM old_products, unnest(old_products.search_vector) AS word
                EXCEPT
                SELECT word.lexeme, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END, new_products.row_order FROM new_products, unnest(new_products.search_vector) AS word
            ) AS gone (word, rank, product_order)
            WHERE (product_words.word, product_words.rank, product_words.product_order) = (gone.word, gone.rank, gone.product_order);
            INSERT INTO product_words (word, rank, product_order)
                SELECT word.lexeme, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END, new_products.row_order FROM new_products, unnest(new_products.search_vector) AS word
                EXCEPT
                SELECT word.lexeme, CASE WHEN word.weights && ARRAY['A'] THEN 0 WHEN word.weights && ARRAY['A', 'B'] THEN 1 ELSE 2 END, old_products.row_order FROM old_products, unnest(old_products.search_vector) AS word
                ORDER BY 1, 2, 3;
            RETURN NULL;
        END $$
        """
    ]
}
