import GRDB

/// The products a change touched since the frequent words' sets, indexed on their own in a table of the read's
/// connection (`temp`), with the tokenizer and columns of `product_search`, so that a search matches them exactly as
/// the store's index would.
///
/// Asking `product_search` about each changed row costs a typed prefix the merge of every doclist the prefix starts,
/// once per row (tens of milliseconds for a few dozen rows at a million products); this table holds the changed rows
/// alone, so that indexing them once per read and matching them costs microseconds a row. Nothing is written to the
/// store: `temp` is the connection's own, and read-only connections may write it.
enum ChangedProductsIndex {
    static let table = "temp.changed_product_search"

    /// Indexes the products whose row numbers `rows` lists (a JSON array) in `table`, in place of those it held.
    static func index(_ rows: String, _ source: some SQLiteReading) throws {
        let statements = [
            """
            CREATE VIRTUAL TABLE IF NOT EXISTS temp.changed_product_search USING fts5(name, brand, description, category, \
            columnsize = 0, tokenize = 'unicode61 remove_diacritics 2')
            """,
            "DELETE FROM temp.changed_product_search",
        ]
        for sql in statements { try source.forEachRow(sql, []) { _, _ in false } }
        try source.forEachRow(
            """
            INSERT INTO temp.changed_product_search (rowid, name, brand, description, category)
            SELECT rowid, name, brand, description, category FROM products WHERE rowid IN (SELECT value FROM json_each(?))
            """, [rows.databaseValue]
        ) { _, _ in false }
    }

    /// The words each indexed row holds, by its row number, as the tokenizer made them (`fts5vocab`'s instances).
    static func words(_ source: some SQLiteReading) throws -> [Int64: Set<String>] {
        let vocabulary = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.changed_product_words USING fts5vocab(temp, changed_product_search, instance)"
        try source.forEachRow(vocabulary, []) { _, _ in false }
        var words: [Int64: Set<String>] = [:]
        // Every instance of every word, without DISTINCT: the sets take each word once, and SQLite would sort them all.
        try source.forEachRow("SELECT doc, term FROM temp.changed_product_words", []) { _, statement in
            let row = DirectRow(statement: statement)
            words[row.integer(0), default: []].insert(row.text(1))
            return true
        }
        return words
    }

    /// The condition on `products` that its row is one of the indexed rows that a search's match text (a parameter)
    /// matches.
    static let matches = "rowid IN (SELECT rowid FROM temp.changed_product_search WHERE changed_product_search MATCH ?)"
}
