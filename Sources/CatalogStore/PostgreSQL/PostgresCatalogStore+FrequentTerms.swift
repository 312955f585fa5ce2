import CatalogStore
import PostgresNIO

extension PostgresCatalogStore {
    public var frequentTermsVersion: Int64? { frequentTerms.productsVersion }

    /// Reads the sets in one read-only snapshot: each row numbered by its `row_order`, with its category and brand;
    /// words proposed by a sample of the table's pages; and each proposal's rows as the search of that one word
    /// reads them.
    public func refreshFrequentTerms(_ policy: FrequentTermPolicy) async throws -> FrequentTerms {
        let terms = try await transaction(.read) { [logger] connection in
            let version = try await Self.versions(connection, logger: logger).products
            var rows: [(order: Int64, category: String, brand: String)] = []
            for try await row in try await connection.query("SELECT row_order, category, brand FROM products", logger: logger)
                .decode((Int64, String, String).self)
            {
                rows.append(row)
            }
            var builder = FrequentTerms.Builder(productsVersion: version, largestRowNumber: rows.map(\.order).max() ?? 0)
            for row in rows {
                builder.assign(builder.valueNumber(row.category, in: .category), in: .category, to: row.order)
                builder.assign(builder.valueNumber(row.brand, in: .brand), in: .brand, to: row.order)
            }
            // TABLESAMPLE SYSTEM reads whole pages at random: a sample costs as many pages, not the table.
            let share = min(100, 100 * Double(policy.sampleSize) / Double(max(rows.count, 1)))
            let sample = PostgresQuery(
                unsafeSQL: "SELECT concat_ws(' ', name, brand, description, category) FROM products TABLESAMPLE SYSTEM (\(share))")
            var texts: [String] = []
            for try await text in try await connection.query(sample, logger: logger).decode(String.self) { texts.append(text) }
            var kept: [(term: String, rows: RowNumberSet)] = []
            for term in policy.candidates(texts) {
                var selected = PostgresConditions()
                selected.addSearch(SearchQuery(term + " "), .products)
                var matches = builder.emptySet()
                let query = PostgresQuery(unsafeSQL: "SELECT row_order FROM products \(selected.whereSQL)", binds: selected.binds)
                for try await order in try await connection.query(query, logger: logger).decode(Int64.self) { matches.insert(order) }
                if policy.keeps(matches.count, of: rows.count) { kept.append((term, matches)) }
            }
            for (term, matches) in kept.sorted(by: { $0.rows.count > $1.rows.count }).prefix(policy.maximumTerms) {
                builder.add(term, rows: matches)
            }
            return builder.build()
        }
        frequentTerms.install(terms)
        return terms
    }

    /// The count of `filter` from the sets, as a scalar query that falls back to counting the rows `selected`
    /// (the listing's own conditions, with their parameters) in a snapshot of any other products version; nil when
    /// no sets answer `filter`. The numbers are the store's own, written into the statement.
    func frequentTermsCount(_ filter: ProductFilter, counting selected: PostgresConditions) -> String? {
        guard let terms = frequentTerms.latest, let rows = terms.selection(filter) else { return nil }
        return """
            SELECT COALESCE((SELECT \(rows.count) FROM versions WHERE name = 'products' AND version = \(terms.productsVersion)),
                (SELECT COUNT(*) FROM products \(selected.whereSQL)))
            """
    }
}
