extension SQLiteSchema {
    /// Migration v7: each category's products in stock, kept by the triggers that keep its products, so that `in_stock`
    /// is counted without reading the products; and the indexes that give the `stock` and `updated_at` orderings and
    /// select products in stock or not.
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
}
