extension SQLiteSchema {
    /// Migration v6: the FTS5 tables searches read (`SQLiteSearchIndex`), over the rows' own text (external content:
    /// the words are indexed, the text is not stored twice), kept by triggers in the transaction that writes the rows,
    /// and built once here from the rows already stored. A row rewritten with the same text changes nothing in its
    /// index. Ranks come from which columns match, not from BM25, so the column sizes BM25 reads are not kept
    /// (`columnsize = 0`). Categories have no rowid to share: their index holds the names, a few hundred at most.
    static let searchIndexes = """
        CREATE VIRTUAL TABLE product_search USING fts5(name, brand, description, category, content = 'products', content_rowid = 'rowid', columnsize = 0, tokenize = 'unicode61 remove_diacritics 2');
        CREATE TRIGGER product_search_insert AFTER INSERT ON products BEGIN INSERT INTO product_search (rowid, name, brand, description, category) VALUES (NEW.rowid, NEW.name, NEW.brand, NEW.description, NEW.category); END;
        CREATE TRIGGER product_search_delete AFTER DELETE ON products BEGIN INSERT INTO product_search (product_search, rowid, name, brand, description, category) VALUES ('delete', OLD.rowid, OLD.name, OLD.brand, OLD.description, OLD.category); END;
        CREATE TRIGGER product_search_update AFTER UPDATE OF name, brand, description, category ON products WHEN OLD.name IS NOT NEW.name OR OLD.brand IS NOT NEW.brand OR OLD.description IS NOT NEW.description OR OLD.category IS NOT NEW.category BEGIN INSERT INTO product_search (product_search, rowid, name, brand, description, category) VALUES ('delete', OLD.rowid, OLD.name, OLD.brand, OLD.description, OLD.category); INSERT INTO product_search (rowid, name, brand, description, category) VALUES (NEW.rowid, NEW.name, NEW.brand, NEW.description, NEW.category); END;
        INSERT INTO product_search (product_search) VALUES ('rebuild');
        CREATE VIRTUAL TABLE film_search USING fts5(title, director, producer, opening_crawl, content = 'films', content_rowid = 'rowid', columnsize = 0, tokenize = 'unicode61 remove_diacritics 2');
        CREATE TRIGGER film_search_insert AFTER INSERT ON films BEGIN INSERT INTO film_search (rowid, title, director, producer, opening_crawl) VALUES (NEW.rowid, NEW.title, NEW.director, NEW.producer, NEW.opening_crawl); END;
        CREATE TRIGGER film_search_delete AFTER DELETE ON films BEGIN INSERT INTO film_search (film_search, rowid, title, director, producer, opening_crawl) VALUES ('delete', OLD.rowid, OLD.title, OLD.director, OLD.producer, OLD.opening_crawl); END;
        CREATE TRIGGER film_search_update AFTER UPDATE OF title, director, producer, opening_crawl ON films WHEN OLD.title IS NOT NEW.title OR OLD.director IS NOT NEW.director OR OLD.producer IS NOT NEW.producer OR OLD.opening_crawl IS NOT NEW.opening_crawl BEGIN INSERT INTO film_search (film_search, rowid, title, director, producer, opening_crawl) VALUES ('delete', OLD.rowid, OLD.title, OLD.director, OLD.producer, OLD.opening_crawl); INSERT INTO film_search (rowid, title, director, producer, opening_crawl) VALUES (NEW.rowid, NEW.title, NEW.director, NEW.producer, NEW.opening_crawl); END;
        INSERT INTO film_search (film_search) VALUES ('rebuild');
        CREATE VIRTUAL TABLE category_search USING fts5(name, tokenize = 'unicode61 remove_diacritics 2');
        CREATE TRIGGER category_search_insert AFTER INSERT ON categories BEGIN
            INSERT INTO category_search (name) VALUES (NEW.name);
        END;
        CREATE TRIGGER category_search_delete AFTER DELETE ON categories BEGIN
            DELETE FROM category_search WHERE name = OLD.name;
        END;
        INSERT INTO category_search (name) SELECT name FROM categories;
        """
}
