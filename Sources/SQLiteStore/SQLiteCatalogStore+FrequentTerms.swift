import CatalogStore
import GRDB

extension SQLiteCatalogStore {
    public var frequentTermsVersion: Int64? { frequentTerms.productsVersion }

    public func refreshFrequentTerms(_ policy: FrequentTermPolicy) async throws -> FrequentTerms {
        let terms = try await read { db in try Self.readFrequentTerms(policy, db) }
        frequentTerms.install(terms)
        return terms
    }

    /// The sets of `policy`'s words in the read transaction of `db`: each row's category and brand from their indexes,
    /// walked in order so that a value is read as text only where it changes; every word of the search index with
    /// how many rows hold it (`fts5vocab`, which reads each word's matches once: 1.8 s at a million products), so that
    /// the words are chosen by their exact counts and prefixes can be spelled out; and each chosen word's rows, as the
    /// search of that one word reads them.
    static func readFrequentTerms(_ policy: FrequentTermPolicy, _ db: Database) throws -> FrequentTerms {
        let largest = try db.integer("SELECT max(rowid) FROM products") ?? 0
        var builder = FrequentTerms.Builder(productsVersion: try StoreVersions.fetch(db).products, largestRowNumber: largest)
        var rows = 0
        for field in ProductFacetField.allCases {
            rows = 0
            var current: [UInt8]?
            var number: UInt32 = 0
            let sql = "SELECT \(field.rawValue), rowid FROM products INDEXED BY products_by_\(field.rawValue) ORDER BY \(field.rawValue)"
            try db.forEachRow(sql, []) { _, statement in
                let row = DirectRow(statement: statement)
                let value = row.bytes(0)
                if current.map({ !value.elementsEqual($0) }) ?? true {
                    current = Array(value)
                    number = builder.valueNumber(String(decoding: value, as: UTF8.self), in: field)
                }
                builder.assign(number, in: field, to: row.integer(1))
                rows += 1
                return true
            }
        }
        try db.forEachRow("SELECT rowid, price_micros FROM products", []) { _, statement in
            let row = DirectRow(statement: statement)
            builder.assignPrice(row.integer(1), to: row.integer(0))
            return true
        }
        // A table of the connection's own, over the index: nothing is written to the store.
        let vocabulary = "temp.\(SQLiteSearchIndex.products.table)_words"
        try db.execute(sql: "CREATE VIRTUAL TABLE IF NOT EXISTS \(vocabulary) USING fts5vocab(main, '\(SQLiteSearchIndex.products.table)', 'row')")
        var words: [String] = []
        var holders: [Int] = []
        try db.forEachRow("SELECT term, doc FROM \(vocabulary)", []) { _, statement in
            let row = DirectRow(statement: statement)
            words.append(row.text(0))
            holders.append(Int(row.integer(1)))
            return true
        }
        for word in builder.chooseWords(from: words, rows: holders, of: rows, policy) {
            var matches = builder.emptySet()
            try addMatches(of: [word], to: &matches, db)
            builder.add(word, rows: matches)
        }
        for prefix in builder.prefixesToSpellOut(policy) {
            var others = builder.emptySet()
            try addMatches(of: prefix.others, to: &others, db)
            builder.add(prefix, otherRows: others)
        }
        return builder.build()
    }

    /// Adds to `rows` the row numbers of the products holding any of `words`, as the search index reads them.
    static func addMatches(of words: [String], to rows: inout RowNumberSet, _ source: some SQLiteReading) throws {
        let match = SQLiteSearchIndex.matchText(SearchQuery(parts: [.anyWord(words)])).databaseValue
        try source.forEachRow("SELECT rowid FROM \(SQLiteSearchIndex.products.table) WHERE \(SQLiteSearchIndex.products.table) MATCH ?", [match]) {
            _, statement in
            rows.insert(DirectRow(statement: statement).integer(0))
            return true
        }
    }
}
