extension PostgresSchema {
    /// Migration v6: each category's products in stock, kept with its products (`in_stock` is counted without reading
    /// the products), and the indexes of the `stock` and `updated_at` orderings. The functions the triggers call take
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
}
