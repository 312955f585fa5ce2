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
    /// walked in order so that a value is read as text only where it changes; words proposed by a sample of the rows;
    /// and each proposal's rows from the search index, as the search of that one word reads them.
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
        let searched = "name, brand, description, category"
        var texts: [String] = []
        func sample(_ row: DirectRow) -> Bool {
            texts.append((0..<4).map { row.text(Int32($0)) }.joined(separator: " "))
            return true
        }
        if rows <= policy.sampleSize {
            try db.forEachRow("SELECT \(searched) FROM products", []) { _, statement in sample(DirectRow(statement: statement)) }
        } else {
            for _ in 0..<policy.sampleSize {
                try db.forEachRow("SELECT \(searched) FROM products WHERE rowid = ?", [Int64.random(in: 1...max(largest, 1)).databaseValue]) {
                    _, statement in sample(DirectRow(statement: statement))
                }
            }
        }
        var kept: [(term: String, rows: RowNumberSet)] = []
        let match = "SELECT rowid FROM \(SQLiteSearchIndex.products.table) WHERE \(SQLiteSearchIndex.products.table) MATCH ?"
        for term in policy.candidates(texts) {
            var matches = builder.emptySet()
            try db.forEachRow(match, [SQLiteSearchIndex.matchText(SearchQuery(term + " ")).databaseValue]) { _, statement in
                matches.insert(DirectRow(statement: statement).integer(0))
                return true
            }
            if policy.keeps(matches.count, of: rows) { kept.append((term, matches)) }
        }
        for (term, matches) in kept.sorted(by: { $0.rows.count > $1.rows.count }).prefix(policy.maximumTerms) {
            builder.add(term, rows: matches)
        }
        return builder.build()
    }
}
