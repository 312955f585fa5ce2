import CatalogModel
import CatalogStore
import PostgresNIO

extension PostgresCatalogStore {
    public func films(_ filter: FilmFilter, page request: PageRequest) async throws -> Page<[FilmRow]> {
        try await transaction(.read) { connection in
            let query = filter.query
            let request = request.ranked(by: query.search, in: .films)
            return try await page(
                .films, connection, request: request, filters: PostgresConditions(query.conditions), search: query.search, walkIn: .single,
                decode: PostgresRows.film
            ) {
                rows in
                try await PostgresRows.attachLinks(to: &rows, connection, logger: logger)
            }
        }
    }

    public func film(episodeID: Int) async throws -> (FilmRow?, StoreVersions) {
        try await transaction(.read) { connection in
            var rows = try await fetch(
                connection, "SELECT \(PostgresRows.filmColumns) FROM films WHERE episode_id = $1", [Int64(episodeID)], decode: PostgresRows.film)
            try await PostgresRows.attachLinks(to: &rows, connection, logger: logger)
            return (rows.first, try await Self.versions(connection, logger: logger))
        }
    }

    public func products<Rows: ProductPageRows>(
        _ filter: ProductFilter, page request: PageRequest, into rows: Rows
    ) async throws -> Page<Rows> {
        frequentTerms.asking(after: try await readProducts(filter, page: request, into: rows), of: filter)
    }

    /// A page of `filter`, from the frequent words' sets as far as they answer it.
    private func readProducts<Rows: ProductPageRows>(
        _ filter: ProductFilter, page request: PageRequest, into rows: Rows
    ) async throws -> Page<Rows> {
        let query = filter.query
        let request = request.ranked(by: query.search, in: .products)
        if filter.isEmpty {
            // On a connection of the generic-plan pool, the only one it takes: a first page runs prepared (`PostgresPlainPages`).
            return try await genericPlans.transaction(logger: logger) { connection in
                try await products(filter, search: nil, page: request, connection, walkIn: .read, terms: nil, onGenericPlans: true, into: rows)
            }
        }
        // A filter the sets answer nothing of is read by the engine alone, in one statement.
        guard let base = frequentTerms.latest, base.mayAnswer(filter) else {
            return try await transaction(.single) { connection in
                try await products(filter, search: query.search, page: request, connection, walkIn: .read, terms: nil, into: rows)
            }
        }
        // Most reads come while the sets are of the newest version: the page is read as if nothing had changed since
        // them, in one statement (a transaction's begin, its versions and its commit are three round trips more), and
        // kept when its snapshot's version is theirs. (A statement before the page's, as the leading rows of a
        // correction, saw that version too: versions only grow, and the sets' is never newer than a snapshot's.) A
        // read that finds a newer one marks the sets as behind, so that the reads after it go the way below at once
        // until they are brought forward.
        if frequentTerms.mayBeNewest(base) {
            let page = try await transaction(.single) { connection in
                try await pageFromSets(filter, page: request, terms: .unchanged(base), versions: nil, connection, walkIn: .read, into: rows)
            }
            if page.versions.products == base.productsVersion { return page }
            frequentTerms.saw(productsVersion: page.versions.products)
        }
        // Otherwise the sets are made exact at the page's snapshot by the changes since them, read with the versions in
        // one statement before the page. Outside a transaction too, kept when the page's snapshot has the versions the
        // changes were read at (every statement between then saw them too, as above); when a write came between, all
        // is read again in one transaction. A typed prefix's page, and outside a transaction a search's read from its
        // lead, are read in a transaction of their own (`PostgresListing.leadPage`): the count, rows and versions come
        // from that one snapshot, and what the page is checked against here is its own versions.
        let searches = PostgresCurrentFrequentTerms.searches(of: filter, in: base)
        let (page, consistent) = try await transaction(.single) { connection in
            try await pageMadeExact(filter, page: request, base: base, searches: searches, connection, walkIn: .read, into: rows)
        }
        if consistent { return page }
        return try await transaction(.read) { connection in
            try await pageMadeExact(filter, page: request, base: base, searches: searches, connection, walkIn: .single, into: rows).page
        }
    }

    /// One page of `filter` with `base` made exact by the changes since it, read on `connection`, in a transaction
    /// when `walkIn` is `.single`; and whether the page's last statement saw the products version the changes were read
    /// at (outside a transaction, an empty page the sets tell of reads the versions after the changed rows' matches).
    private func pageMadeExact<Rows: ProductPageRows>(
        _ filter: ProductFilter, page request: PageRequest, base: FrequentTerms, searches: [SearchQuery],
        _ connection: PostgresConnection, walkIn: PostgresTransactionKind, into rows: Rows
    ) async throws -> (page: Page<Rows>, consistent: Bool) {
        let (versions, terms) = try await PostgresCurrentFrequentTerms.read(base, filter: filter, searches: searches, connection, logger: logger)
        guard let terms else {
            // The engine alone: its page is of one snapshot whatever came before it.
            return (try await products(filter, search: filter.query.search, page: request, connection, walkIn: walkIn, terms: nil, into: rows), true)
        }
        let inTransaction = walkIn == .single
        let page = try await pageFromSets(
            filter, page: request, terms: terms, versions: inTransaction ? versions : nil, connection, walkIn: walkIn, into: rows)
        return (page, page.versions.products == versions.products)
    }

    /// One page of `filter` with `terms`, the sets made exact at the snapshot the page is read at, whose `versions`
    /// are given when known at that snapshot (a page the sets tell is empty reads them otherwise).
    private func pageFromSets<Rows: ProductPageRows>(
        _ filter: ProductFilter, page request: PageRequest, terms: PostgresCurrentFrequentTerms, versions: StoreVersions?,
        _ connection: PostgresConnection, walkIn: PostgresTransactionKind, into rows: Rows
    ) async throws -> Page<Rows> {
        var filter = filter
        var corrections: [SearchCorrection] = []
        if let (corrected, made) = try terms.corrected(filter) {
            (filter, corrections) = (corrected, made)
        }
        let typed = filter.searchQuery
        var search = typed
        if let typed {
            if try terms.current.matchesNothing(typed, matchChanged: terms.matchChanged) {
                try RankedWalk.check(request, ordering: PostgresListing.products.ordering, ranks: SearchFields.products.ranks.count)
                let snapshot: StoreVersions
                if let versions { snapshot = versions } else { snapshot = try await Self.versions(connection, logger: logger) }
                return Page(rows: rows, count: 0, nextCursor: nil, previousCursor: nil, versions: snapshot, searchRead: .nothing)
            }
            search = try terms.current.expanded(typed, matchChanged: terms.matchChanged)
        }
        var page = try await products(filter, search: search, page: request, connection, walkIn: walkIn, terms: terms, into: rows)
        // A correction that finds nothing either is not one: the answer is the empty page of the words as typed.
        if page.count > 0, !corrections.isEmpty { (page.corrections, page.correctedSearch) = (corrections, filter.correctedSearch) }
        return page
    }

    /// One page of `filter` with `search` (its own, or spelled out), its count from `terms` (the sets made exact at the
    /// snapshot of `connection`'s transaction) when they answer it; `onGenericPlans` when `connection` is one of the
    /// generic-plan pool's.
    private func products<Rows: ProductPageRows>(
        _ filter: ProductFilter, search: SearchQuery?, page request: PageRequest, _ connection: PostgresConnection,
        walkIn: PostgresTransactionKind, terms: PostgresCurrentFrequentTerms?, onGenericPlans: Bool = false, into rows: Rows
    ) async throws -> Page<Rows> {
        let query = filter.query
        var filters = PostgresConditions(query.conditions)
        var listing = listing(.products)
        listing.runsOnGenericPlans = onGenericPlans
        let known = try terms?.count(filter, search: search)
        var count = Self.productCount(query, &filters)
        if count == nil, let known { count = "SELECT \(known)" }
        // A hint for reading a ranked page; it is right either way.
        listing.knownMatches = search == nil ? nil : known
        listing.knownLargestRowNumber = terms?.current.base.largestRowNumber
        listing.lead = search.flatMap { terms?.current.lead(of: $0) }
        listing.changedOrders = terms?.changedOrders ?? []
        if let corrected = filter.correctedSearch, try listing.isRanked(request, search) {
            listing.leading = try await listing.leadingRows(
                SearchPlanner.leads(of: corrected), filters: filters, connection, store: description, logger: logger)
        }
        return try await listing.page(
            connection, request: request, filters: filters, search: search, count: count, walkIn: walkIn, store: description,
            logger: logger, into: rows, append: PostgresRows.appendProduct)
    }

    /// The statement that counts the products `query` selects when the derived counts of categories answer it,
    /// its parameters added to `filters`; nil to count the rows (the search index's matches are rows here).
    static func productCount(_ query: ListQuery, _ filters: inout PostgresConditions) -> String? {
        switch query.count {
        case .derived(let expression, nil): "SELECT SUM(\(expression)) FROM categories"
        case .derived(let expression, let category?): "SELECT \(expression) FROM categories WHERE name = \(filters.parameter(category))"
        case .rows: nil
        }
    }

    /// The product and the versions in one statement, so from one snapshot without a transaction: one round trip.
    public func product(serialCode: String) async throws -> (ProductRow?, StoreVersions) {
        let sql = """
            SELECT found.*, meta.* FROM (SELECT \(Self.versionColumns)) AS meta
            LEFT JOIN LATERAL (SELECT \(PostgresRows.productColumns) FROM products WHERE serial_code = $1) AS found ON true
            """
        return try await transaction(.single) { connection in
            let read = try await fetch(connection, sql, [serialCode]) { row in
                (try row[0].bytes == nil ? nil : PostgresRows.withStoredProduct(row, ProductRow.init), try Self.versions(from: row))
            }
            guard let (product, versions) = read.first else { throw StoreUnavailable(store: description, reason: "a product's read returned no row") }
            return (product, versions)
        }
    }

    public func categories(_ filter: CategoryFilter, page request: PageRequest) async throws -> Page<[CategoryRow]> {
        let request = request.ranked(by: filter.searchQuery, in: .categories)
        return try await transaction(.single) { connection in
            try await page(
                .categories, connection, request: request, filters: PostgresConditions(), search: filter.searchQuery, walkIn: .read,
                decode: PostgresRows.category)
        }
    }

    public func category(name: String) async throws -> (CategoryRow?, StoreVersions) {
        try await transaction(.read) { connection in
            let rows = try await fetch(
                connection, "SELECT name, product_count FROM categories WHERE name = $1", [name], decode: PostgresRows.category)
            return (rows.first, try await Self.versions(connection, logger: logger))
        }
    }

    /// One page of `listing` on `connection`: its rows, completed by `complete` (their links, say: run it in a
    /// `.read` transaction then), the count over all pages, and the versions; `walkIn` as `PostgresListing.page` has it.
    func page<Row: Sendable>(
        _ listing: PostgresListing, _ connection: PostgresConnection, request: PageRequest, filters: PostgresConditions,
        search: SearchQuery?, walkIn walkTransaction: PostgresTransactionKind, decode: (PostgresRandomAccessRow) throws -> Row,
        complete: (inout [Row]) async throws -> Void = { _ in }
    ) async throws -> Page<[Row]> {
        var page = try await self.listing(listing).page(
            connection, request: request, filters: filters, search: search, count: nil, walkIn: walkTransaction, store: description,
            logger: logger, into: []
        ) { rows, row in rows.append(try decode(row)) }
        try await complete(&page.rows)
        return page
    }

    /// `listing` as this store reads it.
    func listing(_ listing: PostgresListing) -> PostgresListing {
        var listing = listing
        listing.planner = searchPlanner
        listing.genericPlans = genericPlans
        return listing
    }

    /// The rows of one statement, each read by `decode`.
    func fetch<Row>(
        _ connection: PostgresConnection, _ sql: String, _ arguments: [any PostgresEncodable & Sendable],
        decode: (PostgresRandomAccessRow) throws -> Row
    ) async throws -> [Row] {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments { try binds.append(argument) }
        var rows: [Row] = []
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
            rows.append(try decode(row.makeRandomAccess()))
        }
        return rows
    }

    /// The first column of a row, as an integer of any width.
    static func integer(_ row: PostgresRandomAccessRow) throws -> Int {
        Int(try row[0].decode(Int64.self))
    }
}
