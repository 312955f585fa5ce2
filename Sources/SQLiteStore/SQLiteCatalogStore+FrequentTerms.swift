import CatalogStore
import GRDB

extension SQLiteCatalogStore {
    public var frequentTermsVersion: Int64? { frequentTerms.productsVersion }

    public var frequentTermsWanted: Bool { frequentTerms.wantsPrefixes }

    public func refreshFrequentTerms(_ policy: FrequentTermPolicy) async throws -> FrequentTerms {
        let terms = try await frequentTerms.reading { prefixes in
            try await read { db in try Self.withPrefixes(prefixes, Self.readFrequentTerms(policy, db), db) }
        }
        frequentTerms.install(terms)
        return terms
    }

    /// The sets of `policy`'s words in the read transaction of `db`: each row's category and brand from their indexes,
    /// walked in order so that a value is read as text only where it changes; every word of the search index with
    /// how many rows hold it (`fts5vocab`, which reads each word's matches once), so that
    /// the words are chosen by their exact counts and prefixes can be spelled out; and each chosen word's rows, as the
    /// search of that one word reads them.
    static func readFrequentTerms(_ policy: FrequentTermPolicy, _ db: Database) throws -> FrequentTerms {
        let largest = try db.integer("SELECT max(rowid) FROM products") ?? 0
        let historySeq = try db.integer("SELECT seq FROM sqlite_sequence WHERE name = 'changes'") ?? 0
        var builder = FrequentTerms.Builder(productsVersion: try StoreVersions.fetch(db).products, historySeq: historySeq, largestRowNumber: largest)
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
        try db.forEachRow("SELECT rowid, price_micros, serial_code FROM products", []) { _, statement in
            let row = DirectRow(statement: statement)
            builder.assignPrice(row.integer(1), to: row.integer(0))
            builder.assignKey(row.text(2), to: row.integer(0))
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
            builder.add(word, byRank: try rowsByRank(of: SearchQuery(parts: [.word(word)]), empty: builder.emptySet(), db))
        }
        for prefix in builder.prefixesToSpellOut(policy) {
            var others = builder.emptySet()
            try addMatches(of: prefix.others, to: &others, db)
            builder.add(prefix, otherRows: others)
        }
        return builder.build()
    }

    /// Brings the sets forward in one read transaction: the rows changed since them, and the words the search index's
    /// tokenizer makes of them (`ChangedProductsIndex.words`).
    public func advanceFrequentTerms() async throws -> FrequentTerms? {
        guard let base = frequentTerms.latest else { return nil }
        let advanced = try await frequentTerms.reading { prefixes in
            try await read { db -> FrequentTerms? in
                let versions = try StoreVersions.fetch(db)
                guard versions.products > base.productsVersion else { return try Self.withPrefixes(prefixes, base, db) }
                guard let touched = try Self.changedRows(since: base, limit: FrequentTerms.advanceLimit, db) else { return nil }
                let rows = Self.rowList(touched)
                try ChangedProductsIndex.index(rows, db)
                let words = try ChangedProductsIndex.words(db)
                let products = try db.rows(
                    "SELECT rowid, serial_code, category, brand, price_micros FROM products WHERE rowid IN (SELECT value FROM json_each(?))",
                    [rows.databaseValue]
                ) { row in
                    ChangedProduct(row: row.integer(0), key: row.text(1), category: row.text(2), brand: row.text(3), priceMicros: row.integer(4))
                }
                let advanced = base.advanced(to: versions.products, historySeq: versions.lastSeq, touched: touched, products: products, words: words)
                return try Self.withPrefixes(prefixes, advanced, db)
            }
        }
        if let advanced { frequentTerms.install(advanced) }
        return advanced
    }

    /// `terms` with the sets of the typed prefixes reads asked for (`FrequentTermShelf.askedPrefixes`), read in the
    /// snapshot of `db`, which must be the one `terms` are of; those no longer asked for dropped.
    static func withPrefixes(_ prefixes: [String], _ terms: FrequentTerms, _ db: Database) throws -> FrequentTerms {
        let missing = prefixes.filter { !terms.holdsPrefix($0) }
        guard !missing.isEmpty || terms.widePrefixes.contains(where: { !prefixes.contains($0) }) else { return terms }
        var read: [String: [RowNumberSet]] = [:]
        for prefix in missing {
            read[prefix] = try rowsByRank(of: SearchQuery(parts: [.prefix(prefix)]), empty: RowNumberSet(largest: terms.largestRowNumber), db)
        }
        return terms.adding(prefixes: read, keeping: Set(prefixes))
    }

    /// The rows matching `query` in each rank's columns, as the search index reads them: a column's filter reads the
    /// entries once, where their instances (`fts5vocab`) came one by one, five times slower for a word most rows hold.
    static func rowsByRank(of query: SearchQuery, empty: RowNumberSet, _ source: some SQLiteReading) throws -> [RowNumberSet] {
        try SearchFields.products.ranks.map { columns in
            var rows = empty
            try addMatches(of: query, in: columns, to: &rows, source)
            return rows
        }
    }

    /// Adds to `rows` the row numbers of the products holding any of `words`, as the search index reads them.
    static func addMatches(of words: [String], to rows: inout RowNumberSet, _ source: some SQLiteReading) throws {
        try addMatches(of: SearchQuery(parts: [.anyWord(words)]), to: &rows, source)
    }

    /// Adds to `rows` the row numbers of the products `query` matches in `columns` (every searched column when nil),
    /// as the search index reads them.
    static func addMatches(of query: SearchQuery, in columns: [String]? = nil, to rows: inout RowNumberSet, _ source: some SQLiteReading) throws {
        let match = SQLiteSearchIndex.matchText(query, columns: columns).databaseValue
        try source.forEachRow("SELECT rowid FROM \(SQLiteSearchIndex.products.table) WHERE \(SQLiteSearchIndex.products.table) MATCH ?", [match]) {
            _, statement in
            rows.insert(DirectRow(statement: statement).integer(0))
            return true
        }
    }

    /// The keys of the products changed after a seq (the first parameter), at most the second parameter's number of
    /// changes: read along the history's key from that seq, as few entries as there are changes since. Left to
    /// itself, SQLite reads every entry of the entity's index (`changes_by_key`) for the entity's condition, and a
    /// history holds an entry per product an import wrote (`CurrentFrequentTermsTests` asks its plan).
    static let changesSince = "SELECT key FROM changes NOT INDEXED WHERE seq > ? AND entity = 'product' LIMIT ?"

    /// The sets of `shelf` made exact at the snapshot of `source`, read at `versions`, for a read of `filter`, a page's
    /// or not (`page`): nil without sets, when they answer nothing of `filter` (`FrequentTerms.mayAnswer`), when they
    /// were read at a later products version than the snapshot's, or when `changedRows` finds none.
    static func currentFrequentTerms(
        _ shelf: FrequentTermShelf, for filter: ProductFilter, page: Bool = true, at versions: StoreVersions, _ source: some SQLiteReading
    ) throws -> CurrentFrequentTerms? {
        guard let base = shelf.latest, base.mayAnswer(filter, page: page), base.productsVersion <= versions.products else { return nil }
        guard base.productsVersion < versions.products else { return CurrentFrequentTerms(base: base, changedRows: RowNumberSet(largest: 0)) }
        return try changedRows(since: base, limit: CurrentFrequentTerms.changeLimit, source).map {
            CurrentFrequentTerms(base: base, changedRows: $0)
        }
    }

    /// The rows the changes after `base` touched in the snapshot of `source` (`CurrentFrequentTerms.changedRows`): nil
    /// when the history no longer holds every change since the base (it was pruned), or when more than `limit` changes
    /// of products came since.
    static func changedRows(since base: FrequentTerms, limit: Int, _ source: some SQLiteReading) throws -> RowNumberSet? {
        // Seqs have no gaps: a first kept seq past the base's next means changes since the base were pruned.
        guard let first = try source.integer("SELECT MIN(seq) FROM changes"), first <= base.historySeq + 1 else { return nil }
        var keys: Set<String> = []
        var changes = 0
        try source.forEachRow(changesSince, [base.historySeq.databaseValue, (limit + 1).databaseValue]) { _, statement in
            keys.insert(DirectRow(statement: statement).text(0))
            changes += 1
            return true
        }
        guard changes <= limit else { return nil }
        var changed = RowNumberSet(largest: base.largestRowNumber)
        for key in keys {
            for row in base.keyRows.rows(of: key) { changed.insert(row) }
            try source.forEachRow("SELECT rowid FROM products WHERE serial_code = ?", [key.databaseValue]) { _, statement in
                changed.insert(DirectRow(statement: statement).integer(0))
                return false
            }
        }
        return changed
    }

    /// `rows` as a JSON array, for `json_each`.
    static func rowList(_ rows: RowNumberSet) -> String {
        var list: [String] = []
        rows.forEach { list.append(String($0)) }
        return "[" + list.joined(separator: ",") + "]"
    }

    /// The changed rows of `terms` that a filter and a search select in the snapshot of `source`, as the search index
    /// and the products table read them: the rows looked up by their numbers, and matched in an index of their own
    /// (`ChangedProductsIndex`), made at the first search asked.
    static func changedRowMatcher(_ terms: CurrentFrequentTerms, _ source: some SQLiteReading) -> CurrentFrequentTerms.ChangedRowMatcher {
        let rows = rowList(terms.changedRows)
        var indexed = false
        return { filter, search in
            if search?.matchesNothing == true { return [] }
            var selected = SQLiteConditions(filter.query.conditions)
            selected.add("rowid IN (SELECT value FROM json_each(?))", rows)
            if let search {
                if !indexed {
                    try ChangedProductsIndex.index(rows, source)
                    indexed = true
                }
                selected.add(ChangedProductsIndex.matches, SQLiteSearchIndex.matchText(search))
            }
            // By their row numbers alone: beside a category's or a brand's condition, the planner may read its index.
            return try source.rows("SELECT rowid, category, brand FROM products NOT INDEXED \(selected.whereSQL)", selected.values) { row in
                CurrentFrequentTerms.ChangedRow(row: row.integer(0), category: row.text(1), brand: row.text(2))
            }
        }
    }

    /// The words the changed rows of `terms` hold in the snapshot of `source`, as the search index's tokenizer makes
    /// them (`ChangedProductsIndex.words`).
    static func changedWords(_ terms: CurrentFrequentTerms, _ source: some SQLiteReading) -> CurrentFrequentTerms.ChangedWords {
        {
            try ChangedProductsIndex.index(rowList(terms.changedRows), source)
            return try ChangedProductsIndex.words(source).words.map(\.word)
        }
    }
}
