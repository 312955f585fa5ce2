import CatalogStore
import GRDB
import GRDBSQLite

extension SQLiteCatalogStore {
    /// How many matches a search has before its facets are counted along whole indexes (`facetValues(_:among:)`):
    /// below it, looking each match up by its row number costs less than walking a million index entries.
    static let manyMatchesFrom = 20_000

    public func productFacets(_ filter: ProductFilter, fields: [ProductFacetField], size: Int) async throws -> ProductFacets {
        let frequentTerms = frequentTerms
        return try await read { db in
            let versions = try StoreVersions.fetch(db)
            var filter = filter
            if let terms = try Self.currentFrequentTerms(frequentTerms, for: filter, page: false, at: versions, db) {
                let matchChanged = Self.changedRowMatcher(terms, db)
                // The facets of the search the page read: corrected when it was.
                if let (corrected, _) = try terms.corrected(filter, matchChanged: matchChanged, changedWords: Self.changedWords(terms, db)) {
                    filter = corrected
                }
                let search = try filter.searchQuery.map { try terms.expanded($0, matchChanged: matchChanged) }
                if let selected = try terms.selection(
                    filter, search: search, addRows: { try Self.addMatches(of: $0, to: &$1, db) }, matchChanged: matchChanged)
                {
                    return ProductFacets(counts: fields.map { ($0, terms.facetValues($0, among: selected, size: size)) }, versions: versions)
                }
            }
            let matches = try Self.manyMatches(of: filter, from: Self.manyMatchesFrom, db)
            let counts = try fields.map { field in
                if let matches { return (field, try Self.facetValues(field, among: matches, of: filter, size: size, db)) }
                let query = Self.facetQuery(field, of: filter, size: size)
                let values = try Row.fetchAll(db, sql: query.sql, arguments: StatementArguments(query.arguments)).map { row in
                    FacetValue(value: row["value"], count: row["count"])
                }
                return (field, values)
            }
            return ProductFacets(counts: counts, versions: versions)
        }
    }

    /// The statement that counts one facet's values, largest counts first: the categories of the whole listing from
    /// their derived counts, any other from the selected rows (`FacetPlanTests` asks SQLite's plans).
    static func facetQuery(_ field: ProductFacetField, of filter: ProductFilter, size: Int) -> (sql: String, arguments: [DatabaseValue]) {
        if field == .category && filter.isEmpty {
            return ("SELECT name AS value, product_count AS count FROM categories ORDER BY product_count DESC, name LIMIT ?", [size.databaseValue])
        }
        let column = field.rawValue
        // Products without a brand hold ''; they are not a value of the facet.
        let query = filter.query
        var selected = productListing.selecting(SQLiteConditions(query.conditions), query.search)
        selected.add("\(column) != ''")
        return (
            "SELECT \(column) AS value, COUNT(*) AS count FROM products \(selected.whereSQL) GROUP BY \(column) ORDER BY count DESC, value LIMIT ?",
            selected.values + [size.databaseValue]
        )
    }

    /// The row numbers of the products `filter`'s search matches, when they are more than `threshold` and the rest of
    /// the filter is a price range, which every facet's index holds; nil otherwise.
    static func manyMatches(of filter: ProductFilter, from threshold: Int, _ db: Database) throws -> RowNumberSet? {
        guard let search = filter.searchQuery, !search.matchesNothing, filter.category == nil, filter.brand == nil, filter.inStock == nil
        else { return nil }
        var matches = RowNumberSet(largest: try db.integer("SELECT max(rowid) FROM products") ?? 0)
        let match = "SELECT rowid FROM \(SQLiteSearchIndex.products.table) WHERE \(SQLiteSearchIndex.products.table) MATCH ?"
        try db.forEachRow(match, [SQLiteSearchIndex.matchText(search).databaseValue]) { _, statement in
            matches.insert(DirectRow(statement: statement).integer(0))
            return true
        }
        return matches.count > threshold ? matches : nil
    }

    /// One facet's values among `matches`, from the facet's index walked whole: its entries come grouped by value,
    /// each with its row number, and an entry counts when the set holds its row and the price range passes it.
    static func facetValues(
        _ field: ProductFacetField, among matches: RowNumberSet, of filter: ProductFilter, size: Int, _ db: Database
    ) throws -> [FacetValue] {
        let column = field.rawValue
        var selected = SQLiteConditions(ProductFilter(minimumPrice: filter.minimumPrice, maximumPrice: filter.maximumPrice).query.conditions)
        selected.add("\(column) != ''")
        let sql = "SELECT \(column), rowid FROM products INDEXED BY products_by_\(column) \(selected.whereSQL) ORDER BY \(column)"
        var values: [FacetValue] = []
        var current: [UInt8] = []
        var count = 0
        func endValue() {
            if count > 0 { values.append(FacetValue(value: String(decoding: current, as: UTF8.self), count: count)) }
        }
        try db.forEachRow(sql, selected.values) { _, statement in
            let row = DirectRow(statement: statement)
            guard matches.contains(row.integer(1)) else { return true }
            let value = row.bytes(0)
            if !value.elementsEqual(current) {
                endValue()
                current = Array(value)
                count = 0
            }
            count += 1
            return true
        }
        endValue()
        return FacetValue.largestFirst(values, size: size)
    }
}
