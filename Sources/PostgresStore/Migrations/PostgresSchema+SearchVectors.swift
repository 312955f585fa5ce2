extension PostgresSchema {
    /// Migration v4: each searched table's `search_vector` (`PostgresSearchIndex`), generated from its row, so that every
    /// statement writing a row keeps it, and indexed; computed here once for the rows already stored.
    ///
    /// First, what a search ignores, as functions a generated column may call: the diacritics of Latin letters, as
    /// SQLite's `unicode61` tokenizer drops them (`remove_diacritics 2`: a letter whose canonical decomposition is an
    /// ASCII letter and combining marks is that letter, but for Ǡ and ǡ, which its table lacks); and what separates
    /// words besides what the text search parser counts as neither letter nor digit, ASCII punctuation, which it would
    /// otherwise read as parts of e-mail addresses, paths or version numbers. Regular expressions over explicit code
    /// points hold whatever the column's collation (the `C` of sorted text would make `[:alnum:]` ASCII only); the
    /// `simple` configuration lowers case by the database's own locale. A `translate` table of the 486 Latin letters
    /// did the same about ten times slower.
    ///
    /// Each function is whole in itself, calling only the built-in functions every search path finds: a restore of
    /// `pg_dump` output, which empties the search path, computes the generated columns with them.
    static let searchVectors: [String] = [
        #"""
        CREATE FUNCTION catalog_search_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT normalize(regexp_replace(normalize($1, NFD), '([B-Zb-z]|[Aa](?!\u0307\u0304))[\u0300-\u036f]+', '\1', 'g'), NFC) $$
        """#,
        #"""
        CREATE FUNCTION catalog_search_words(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        AS $$ SELECT regexp_replace(normalize(regexp_replace(normalize($1, NFD), '([B-Zb-z]|[Aa](?!\u0307\u0304))[\u0300-\u036f]+', '\1', 'g'), NFC), '[!-/:-@[-`{-~]+', ' ', 'g') $$
        """#,
        """
        ALTER TABLE products ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, catalog_search_words(name)), 'A') || setweight(to_tsvector('simple'::regconfig, catalog_search_words(brand)), 'B') || setweight(to_tsvector('simple'::regconfig, catalog_search_words(description)), 'C') || setweight(to_tsvector('simple'::regconfig, catalog_search_words(category)), 'D')) STORED
        """,
        "CREATE INDEX products_search ON products USING gin (search_vector)",
        """
        ALTER TABLE films ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, catalog_search_words(title)), 'A') || setweight(to_tsvector('simple'::regconfig, catalog_search_words(director)), 'B') || setweight(to_tsvector('simple'::regconfig, catalog_search_words(producer)), 'C') || setweight(to_tsvector('simple'::regconfig, catalog_search_words(opening_crawl)), 'D')) STORED
        """,
        "CREATE INDEX films_search ON films USING gin (search_vector)",
        """
        ALTER TABLE categories ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, catalog_search_words(name)), 'A')) STORED
        """,
        "CREATE INDEX categories_search ON categories USING gin (search_vector)",
    ]
}
