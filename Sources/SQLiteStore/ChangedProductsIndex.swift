import CatalogStore
import GRDB

/// The products a change touched since the frequent words' sets, indexed on their own in a table of the read's
/// connection (`temp`), with the tokenizer and columns of `product_search`, so that a search matches them exactly as
/// the store's index would.
///
/// Asking `product_search` about each changed row costs a typed prefix the merge of every doclist the prefix starts,
/// once per row (tens of milliseconds for a few dozen rows at a million products); this table holds the changed rows
/// alone, so that indexing them once per read and matching them costs microseconds a row. Nothing is written to the
/// store: `temp` is the connection's own, and read-only connections may write it. The table keeps no copy of the text
/// (`content = ''`): only its index is read, and it is emptied for the next read by one command (`delete-all`), where
/// deleting the rows of a table with content tokenizes each again (for 20,000 rows, 110 ms to index them became 280).
enum ChangedProductsIndex {
    static let table = "temp.changed_product_search"

    /// Indexes the products whose row numbers `rows` lists (a JSON array) in `table`, in place of those it held.
    static func index(_ rows: String, _ source: some SQLiteReading) throws {
        let statements = [
            """
            CREATE VIRTUAL TABLE IF NOT EXISTS temp.changed_product_search USING fts5(name, brand, description, category, \
            content = '', columnsize = 0, tokenize = 'unicode61 remove_diacritics 2')
            """,
            "INSERT INTO temp.changed_product_search (changed_product_search) VALUES ('delete-all')",
        ]
        for sql in statements { try source.forEachRow(sql, []) { _, _ in false } }
        try source.forEachRow(
            """
            INSERT INTO temp.changed_product_search (rowid, name, brand, description, category)
            SELECT rowid, name, brand, description, category FROM products WHERE rowid IN (SELECT value FROM json_each(?))
            """, [rows.databaseValue]
        ) { _, _ in false }
    }

    /// The words the indexed rows hold, each with its rows, as the tokenizer made them (`fts5vocab`'s instances).
    static func words(_ source: some SQLiteReading) throws -> ChangedWords {
        let vocabulary = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.changed_product_words USING fts5vocab(temp, changed_product_search, instance)"
        try source.forEachRow(vocabulary, []) { _, _ in false }
        var words = ChangedWords()
        // Every instance of every word, without DISTINCT (SQLite would sort them all): they come by word, and a word's
        // by row, so that a word's text is made once and a row is taken once however often it holds the word, at the
        // best rank of its instances.
        var word: [UInt8] = []
        var rows: [Int64] = []
        var ranks: [Int] = []
        func addWord() {
            if !rows.isEmpty { words.add(String(decoding: word, as: UTF8.self), rows: rows, ranks: ranks) }
        }
        let lastRank = SearchFields.products.ranks.count - 1
        try source.forEachRow("SELECT term, doc, col FROM temp.changed_product_words", []) { _, statement in
            let instance = DirectRow(statement: statement)
            let term = instance.bytes(0)
            if !term.elementsEqual(word) {
                addWord()
                (word, rows, ranks) = (Array(term), [], [])
            }
            let row = instance.integer(1)
            let rank = SQLiteSearchIndex.products.rank(ofColumn: instance.bytes(2)) ?? lastRank
            if rows.last != row {
                rows.append(row)
                ranks.append(rank)
            } else if let last = ranks.indices.last {
                ranks[last] = min(ranks[last], rank)
            }
            return true
        }
        addWord()
        return words
    }

    /// The condition on `products` that its row is one of the indexed rows that a search's match text (a parameter)
    /// matches.
    static let matches = "rowid IN (SELECT rowid FROM temp.changed_product_search WHERE changed_product_search MATCH ?)"

    /// The indexed rows that a search's match text (the first parameter) matches among those a JSON array (the second)
    /// lists, by their row numbers.
    static let matchingRows = """
        SELECT rowid FROM temp.changed_product_search WHERE changed_product_search MATCH ? AND rowid IN (SELECT value FROM json_each(?))
        """
}
