import CatalogModel
import CatalogStore
import CatalogStoreKit
import Foundation
import GRDB
import GRDBSQLite

extension SQLiteCatalogStore {
    static let filmListing = SQLiteListing(
        table: "films", columns: FilmRow.columns, keyColumn: "episode_id",
        ordering: .films, searchIndex: .films)

    static let productListing = SQLiteListing(
        table: "products", columns: ProductRow.columns, keyColumn: "serial_code",
        ordering: .products, expressions: ["price": "price_micros"], searchIndex: .products, indexes: .products,
        keyIndex: "sqlite_autoindex_products_1")

    static let categoryListing = SQLiteListing(
        table: "categories", columns: CategoryRow.columns, keyColumn: "name",
        ordering: .categories, searchIndex: .categories)

    public func films(_ filter: FilmFilter, page request: PageRequest) async throws -> Page<[FilmRow]> {
        try await read { db in
            let (rows, next, previous, read) = try Self.filmPage(filter, request, db)
            let query = filter.query
            let count = try Self.filmListing.count(db, Self.filmListing.selecting(SQLiteConditions(query.conditions), query.search))
            return Page(
                rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: try StoreVersions.fetch(db), searchRead: read)
        }
    }

    /// A page of films with their links, without its count.
    static func filmPage(
        _ filter: FilmFilter, _ request: PageRequest, _ db: Database
    ) throws -> (rows: [FilmRow], next: String?, previous: String?, read: SearchRead?) {
        let query = filter.query
        var page = try filmListing.page(
            db, request: request.ranked(by: query.search, in: .films), filters: SQLiteConditions(query.conditions), search: query.search,
            decode: FilmRow.init(row:))
        try FilmRow.attachLinks(to: &page.rows, db)
        return page
    }

    public func film(episodeID: Int) async throws -> (FilmRow?, StoreVersions) {
        try await read { db in
            var rows = try Row.fetchAll(
                try db.cachedStatement(sql: "SELECT \(FilmRow.columns) FROM films WHERE episode_id = ?"), arguments: [episodeID]
            )
            .map(FilmRow.init(row:))
            try FilmRow.attachLinks(to: &rows, db)
            return (rows.first, try StoreVersions.fetch(db))
        }
    }

    public func products<Rows: ProductPageRows>(
        _ filter: ProductFilter, page request: PageRequest, into rows: Rows
    ) async throws -> Page<Rows> {
        frequentTerms.asking(after: try await readProducts(filter, page: request, into: rows), of: filter)
    }

    /// A page of `filter`: on the calling thread when an index answers it, on GRDB's readers otherwise.
    private func readProducts<Rows: ProductPageRows>(
        _ filter: ProductFilter, page request: PageRequest, into rows: Rows
    ) async throws -> Page<Rows> {
        let request = request.ranked(by: filter.searchQuery, in: .products)
        let frequentTerms = frequentTerms
        let indexAnswers = try Self.indexAnswers(filter, request)
        if indexAnswers || Self.matchesNothing(filter, frequentTerms.latest),
            case let page?? = try directReaders.read({ reader -> Page<Rows>? in
                let versions = try StoreVersions.fetch(reader)
                let terms = try Self.currentFrequentTerms(frequentTerms, for: filter, at: versions, reader).map {
                    ($0, Self.changedRowMatcher($0, reader))
                }
                // Only the sets made exact at the snapshot read tell: a word written since may match many products.
                guard try indexAnswers || terms.map({ try Self.matchesNothing(filter, $0.0, matchChanged: $0.1) }) == true else { return nil }
                return try Self.products(filter, page: request, into: rows, versions: versions, terms: terms, reader)
            })
        {
            return page
        }
        return try await read { try Self.products(filter, page: request, into: rows, frequentTerms: frequentTerms, $0) }
    }

    /// Whether an index gives the page's rows in the order asked, so that reading it takes microseconds: then it
    /// is read on the calling thread; any other (a search, or an order no index has, which sort the table) on
    /// GRDB's readers, so that it never holds up a thread the server answers on.
    private static func indexAnswers(_ filter: ProductFilter, _ request: PageRequest) throws -> Bool {
        let field = try productListing.ordering.resolveOrdering(request).field
        var otherFilters = filter
        otherFilters.category = nil
        // products_by_category holds each category's products by serial_code.
        return filter.isEmpty ? indexOrderedFields.contains(field) : otherFilters.isEmpty && field == "serial_code"
    }

    /// Whether the sets of frequent words say that the search matches no product (a word no product holds): made
    /// exact at the snapshot read, they answer the page from the versions alone, in microseconds, so on the calling
    /// thread too. Without a source, the base alone tells whether that is worth trying. A search whose words may be
    /// corrected is read as corrected, which takes an engine's read: not on the calling thread.
    private static func matchesNothing(_ filter: ProductFilter, _ terms: FrequentTerms?) -> Bool {
        guard let terms, let search = filter.searchQuery else { return false }
        return terms.matchesNothing(terms.expanded(search)) && !(filter.correctsTypos && SearchPlanner.mayCorrect(search, in: terms))
    }

    private static func matchesNothing(
        _ filter: ProductFilter, _ terms: CurrentFrequentTerms, matchChanged: CurrentFrequentTerms.ChangedRowMatcher
    ) throws -> Bool {
        guard let search = filter.searchQuery else { return false }
        return try terms.matchesNothing(search, matchChanged: matchChanged)
    }

    /// The orderings of products an index gives (`DirectReadTests` asks SQLite's plans).
    static let indexOrderedFields = Set(ListIndexes.products.orderings.keys)

    /// One page of products and their count: from the sets of `frequentTerms` when they were read at the version the
    /// page is read at and answer `filter`, else as `productCount` says.
    private static func products<Rows: ProductPageRows>(
        _ filter: ProductFilter, page request: PageRequest, into rows: Rows, frequentTerms: FrequentTermShelf, _ source: some SQLiteReading
    ) throws -> Page<Rows> {
        let versions = try StoreVersions.fetch(source)
        let terms = try currentFrequentTerms(frequentTerms, for: filter, at: versions, source).map { ($0, changedRowMatcher($0, source)) }
        return try products(filter, page: request, into: rows, versions: versions, terms: terms, source)
    }

    /// `products` at `versions`, read in this read's transaction, with `current`, the sets of frequent words made exact
    /// at that snapshot when there are, and the matcher of their changed rows (one a read: it indexes them once).
    private static func products<Rows: ProductPageRows>(
        _ filter: ProductFilter, page request: PageRequest, into rows: Rows, versions: StoreVersions,
        terms current: (CurrentFrequentTerms, CurrentFrequentTerms.ChangedRowMatcher)?, _ source: some SQLiteReading
    ) throws -> Page<Rows> {
        var rows = rows
        let (terms, matchChanged) = (current?.0, current?.1)
        if let terms, let matchChanged,
            let (corrected, corrections) = try terms.corrected(filter, matchChanged: matchChanged, changedWords: changedWords(terms, source))
        {
            var page = try products(corrected, page: request, into: rows, versions: versions, terms: current, source)
            // A correction that finds nothing either is not one: the answer is the empty page of the words as typed.
            if page.count > 0 { (page.corrections, page.correctedSearch) = (corrections, corrected.correctedSearch) }
            return page
        }
        let query = filter.query
        let filters = SQLiteConditions(query.conditions)
        var search = query.search
        if let terms, let matchChanged, let typed = query.search {
            if try terms.matchesNothing(typed, matchChanged: matchChanged) {
                try RankedWalk.check(request, ordering: productListing.ordering, ranks: SearchFields.products.ranks.count)
                return Page(rows: rows, count: 0, nextCursor: nil, previousCursor: nil, versions: versions, searchRead: .nothing)
            }
            search = try terms.expanded(typed, matchChanged: matchChanged)
        }
        let leading = try leadingRows(filter, request, filters, source)
        let (next, previous, read, readCount) = try productListing.page(
            source, request: request, filters: filters, search: search, leading: leading, lead: search.flatMap { terms?.lead(of: $0) },
            into: &rows
        ) { rows, _, statement in
            rows.append(ProductColumn.stored(statement))
        }
        let count: Int
        if let readCount {
            count = readCount
        } else if let terms, let matchChanged,
            let selected = try terms.selection(
                filter, search: search, addRows: { try addMatches(of: $0, to: &$1, source) }, matchChanged: matchChanged)
        {
            count = selected.count
        } else if let terms, let matchChanged, let brandCount = try terms.brandCount(filter, matchChanged: matchChanged) {
            count = brandCount
        } else {
            let counting = productCount(query, search: search, filters)
            count = Int(try source.integer(counting.sql, counting.arguments) ?? 0)
        }
        return Page(rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: versions, searchRead: read)
    }

    /// The rows a page of a corrected search ordered by relevance leads with (`LeadingRows`); none for any other page.
    private static func leadingRows(
        _ filter: ProductFilter, _ request: PageRequest, _ filters: SQLiteConditions, _ source: some SQLiteReading
    ) throws -> LeadingRows {
        guard let corrected = filter.correctedSearch, let searchIndex = productListing.searchIndex,
            try productListing.ordering.resolveOrdering(request).field == ListOrdering.relevance
        else { return .none }
        return try searchIndex.leadingRows(
            SearchPlanner.leads(of: corrected), listed: productListing.table, keyColumn: productListing.keyColumn, filters: filters, source)
    }

    /// The statement that counts the products `query` selects (`filters` and `search`, its own or `expanded`), as
    /// its `count` says (`ListingPlanTests` asks SQLite's plans).
    static func productCount(_ query: ListQuery, search: SearchQuery?, _ filters: SQLiteConditions) -> (sql: String, arguments: [DatabaseValue]) {
        switch (query.count, search) {
        case (.derived(let expression, nil), _): ("SELECT COALESCE(SUM(\(expression)), 0) FROM categories", [])
        case (.derived(let expression, let category?), _): ("SELECT \(expression) FROM categories WHERE name = ?", [category.databaseValue])
        case (.rows, let search?): SQLiteSearchIndex.products.countStatement(search, listed: "products", filters: filters)
        case (.rows, nil): ("SELECT COUNT(*) FROM products \(filters.whereSQL)", filters.values)
        }
    }

    /// Read on the calling thread when a `DirectReader` is free (`DirectReaders`), else on GRDB's readers.
    public func product(serialCode: String) async throws -> (ProductRow?, StoreVersions) {
        if let found = try directReaders.read({ try Self.product(serialCode: serialCode, $0) }) { return found }
        return try await read { try Self.product(serialCode: serialCode, $0) }
    }

    private static func product(serialCode: String, _ source: some SQLiteReading) throws -> (ProductRow?, StoreVersions) {
        var row: ProductRow?
        try source.forEachRow("SELECT \(ProductRow.columns) FROM products WHERE serial_code = ?", [serialCode.databaseValue]) { _, statement in
            row = ProductRow(ProductColumn.stored(statement))
            return false
        }
        return (row, try StoreVersions.fetch(source))
    }

    public func categories(_ filter: CategoryFilter, page request: PageRequest) async throws -> Page<[CategoryRow]> {
        try await read { db in
            let (rows, next, previous, read) = try Self.categoryPage(filter, request, db)
            let count = try Self.categoryListing.count(db, Self.categoryListing.selecting(SQLiteConditions(), filter.searchQuery))
            return Page(
                rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: try StoreVersions.fetch(db), searchRead: read)
        }
    }

    /// A page of categories, without its count.
    static func categoryPage(
        _ filter: CategoryFilter, _ request: PageRequest, _ db: Database
    ) throws -> (rows: [CategoryRow], next: String?, previous: String?, read: SearchRead?) {
        try categoryListing.page(
            db, request: request.ranked(by: filter.searchQuery, in: .categories), filters: SQLiteConditions(), search: filter.searchQuery,
            decode: CategoryRow.init(row:))
    }

    public func category(name: String) async throws -> (CategoryRow?, StoreVersions) {
        try await read { db in
            let row = try Row.fetchOne(try db.cachedStatement(sql: "SELECT \(CategoryRow.columns) FROM categories WHERE name = ?"), arguments: [name])
            return (row.map(CategoryRow.init(row:)), try StoreVersions.fetch(db))
        }
    }
}
