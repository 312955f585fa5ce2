import CatalogModel
import CatalogStore
import CatalogStoreKit
import Logging
import PostgresNIO

/// How the list query of one resource reads its table in each ordering it accepts.
struct PostgresListing {
    let table: String
    let columns: String
    let keyColumn: String
    let ordering: ListOrdering
    /// The SQL expression of each field whose column is named otherwise.
    var expressions: [String: String] = [:]
    /// The column a search reads, when the resource has one.
    var searchIndex: PostgresSearchIndex?
    /// How a ranked page is read (`page`).
    var planner = SearchPlanner(reads: Self.searchReads)
    /// How many rows a search and the filters select, when the caller knows without asking (`FrequentTerms`): the
    /// planner's `SearchPlanner.Facts.knownMatches`.
    var knownMatches: Int?
    /// The largest row number of the products when `knownMatches` was told (`FrequentTerms.largestRowNumber`): how
    /// dense the matches are among the rows.
    var knownLargestRowNumber: Int64?
    /// The rows a ranked page shows before the search's other matches (`LeadingRows`, `leadingRows`).
    var leading = LeadingRows.none
    /// How a search of several parts is read from its lead (`SearchLead`), when the frequent words' sets, made exact at
    /// the read's snapshot, tell its other words.
    var lead: SearchLead?
    /// The orders the rows a change since the frequent words' sets touched hold at the read's snapshot, for a lead the
    /// sets hold (`SearchLead.matchesFromSets`).
    var changedOrders: [Int64] = []
    /// Where the prepared first word pages (`PostgresFirstWordPage`) and the pages read from runs
    /// (`PostgresListing.leadPage`) run; on the caller's connection without.
    var genericPlans: PostgresGenericPlanPool?
    /// Whether the caller's connection is one of `PostgresGenericPlanPool`'s: then a plain first page runs prepared on it
    /// (`PostgresPlainPages`).
    var runsOnGenericPlans = false

    /// How many times an empty page is read before giving up, when commits keep filling it in between.
    static let emptyPageAttempts = 3

    static let films = PostgresListing(
        table: "films", columns: PostgresRows.filmColumns, keyColumn: "episode_id", ordering: .films, searchIndex: .films)
    static let products = PostgresListing(
        table: "products", columns: PostgresRows.productColumns, keyColumn: "serial_code", ordering: .products,
        expressions: ["price": "price_micros"], searchIndex: .products)
    static let categories = PostgresListing(
        table: "categories", columns: "name, product_count", keyColumn: "name", ordering: .categories, searchIndex: .categories)
    static let imports = PostgresListing(table: "imports", columns: PostgresRows.importColumns, keyColumn: "id", ordering: .imports)

    /// The statements of one page of the rows `conditions` select, in `request`'s ordering from its cursor
    /// (`PostgresPlanTests` asks PostgreSQL's plans): the page's rows, each with its sort value, key and the
    /// `meta` columns; and, for an empty page, the meta columns alone with whether the page is still empty.
    struct PageStatement {
        let page: String
        let empty: String
        let binds: PostgresBindings
        let resolved: ListOrdering.Resolved
    }

    /// The statements of one page (`PageStatement`); the meta columns are the count over all pages (`count`, a
    /// scalar query on the same parameters, when the caller knows a cheaper one), whether there are rows behind the
    /// cursor, and the versions.
    func pageStatement(_ request: PageRequest, conditions: PostgresConditions, count: String?) throws -> PageStatement {
        let resolved = try ordering.resolve(request)
        let walk = KeysetWalk(resolved)
        let cursor = resolved.cursor
        let sortExpression = self.sortExpression(resolved.field)
        var statement = conditions
        let countSQL = count ?? "SELECT COUNT(*) FROM \(table) \(conditions.whereSQL)"
        // Rows on the far side of the cursor, seen from the page: in one snapshot, the same as rows beyond the
        // page's edge next to the cursor.
        var beyondCursor = "false"
        var pageConditions = conditions
        if let cursor {
            let position = KeysetComparison(sortExpression: sortExpression, keyColumn: keyColumn)
            // The probe and the page compare with the same parameters.
            let sortValue = position.comparesKeyOnly ? "" : statement.parameter(cursor.sortValue)
            let key = statement.parameter(cursor.key)
            var probe = conditions
            probe.add(position.condition(walk.cursorSide, sortValue: sortValue, key: key))
            beyondCursor = "EXISTS (SELECT 1 FROM \(table) \(probe.whereSQL))"
            pageConditions.add(position.condition(walk.pageSide, sortValue: sortValue, key: key))
        }
        let direction = walk.direction
        let limit = statement.parameter(Int64(request.pageSize + 1))
        // The count, the probe and the versions are scalar subqueries, evaluated once and repeated on every row:
        // cheaper to plan and run than a join of the page to them.
        let meta = "COALESCE((\(countSQL)), 0)::bigint AS listing_count, \(beyondCursor) AS beyond_cursor, \(PostgresCatalogStore.versionColumns)"
        return PageStatement(
            page: """
                SELECT \(columns), \(sortExpression) AS position_sort, \(keyColumn) AS position_key, \(meta) FROM \(table) \(pageConditions.whereSQL)
                ORDER BY \(sortExpression) \(direction), \(keyColumn) \(direction) LIMIT \(limit)
                """,
            // An empty page has no row to carry them: they are read on their own, with whether the page is still
            // empty in that snapshot; when a commit came in between, the page is read again.
            empty: "SELECT \(meta), EXISTS (SELECT 1 FROM \(table) \(pageConditions.whereSQL)) AS page_has_rows",
            binds: statement.binds, resolved: resolved)
    }

    /// The rows `conditions` select after `position` (from the start when nil) in `walk`'s ordering, at most
    /// `limit` of them, from `offset` on, as a subquery's `WHERE … ORDER BY … OFFSET … LIMIT …` and its parameters:
    /// an export's parts and the probes that find where each starts.
    private func range(
        _ walk: KeysetWalk, conditions: PostgresConditions, after position: KeysetWalk.Position?, offset: Int, limit: Int
    ) -> (sql: String, binds: PostgresBindings, sortExpression: String) {
        let sortExpression = self.sortExpression(walk.resolved.field)
        var statement = conditions
        if let position {
            let comparison = KeysetComparison(sortExpression: sortExpression, keyColumn: keyColumn)
            let sortValue = comparison.comparesKeyOnly ? "" : statement.parameter(position.sortValue)
            statement.add(comparison.condition(walk.pageSide, sortValue: sortValue, key: statement.parameter(position.key)))
        }
        let (offset, limit) = (statement.parameter(Int64(offset)), statement.parameter(Int64(limit)))
        let sql = """
            \(statement.whereSQL) ORDER BY \(sortExpression) \(walk.direction), \(keyColumn) \(walk.direction) OFFSET \(offset) LIMIT \(limit)
            """
        return (sql, statement.binds, sortExpression)
    }

    /// The statement of a part of an export (`PostgresPackedProducts`): at most `limit` of the rows `conditions`
    /// select in `walk`'s ordering, after `position` (from the start when nil), as one row of `aggregates` over them.
    /// The aggregates take the rows in the order the subquery gives them, which nothing reorders: no join, and no
    /// parallel workers in a snapshot.
    func partStatement(
        _ walk: KeysetWalk, conditions: PostgresConditions, after position: KeysetWalk.Position?, limit: Int, aggregates: String
    ) -> (sql: String, binds: PostgresBindings) {
        let range = range(walk, conditions: conditions, after: position, offset: 0, limit: limit)
        return ("SELECT \(aggregates) FROM (SELECT \(columns) FROM \(table) \(range.sql)) AS part", range.binds)
    }

    /// The statement of the position of the last row of that part, when it is full: where the next part starts, read
    /// by the ordering's index alone where the filters allow, without the rows before it.
    func partEndStatement(
        _ walk: KeysetWalk, conditions: PostgresConditions, after position: KeysetWalk.Position?, limit: Int
    ) -> (sql: String, binds: PostgresBindings) {
        let range = range(walk, conditions: conditions, after: position, offset: limit - 1, limit: 1)
        return ("SELECT \(range.sortExpression) AS position_sort, \(keyColumn) AS position_key FROM \(table) \(range.sql)", range.binds)
    }

    /// The SQL expression an ordering by `field` sorts by.
    func sortExpression(_ field: String) -> String { expressions[field] ?? field }

    /// Reads one page in one statement, so from one snapshot even outside a transaction: its rows, cursors for
    /// the pages on either side when there are rows there, the count over all pages and the versions
    /// (`pageStatement`). Each row is handed to `append` in the page's order.
    func page<Rows: PageRows>(
        _ connection: PostgresConnection, request: PageRequest, conditions: PostgresConditions, count: String?, store: String,
        logger: Logger, into rows: Rows, append: (inout Rows, PostgresRandomAccessRow) throws -> Void
    ) async throws -> Page<Rows> {
        let statement = try pageStatement(request, conditions: conditions, count: count)
        let walk = KeysetWalk(statement.resolved)
        var fetched: [PostgresRandomAccessRow] = []
        var metaRow: PostgresRandomAccessRow?
        for _ in 0..<Self.emptyPageAttempts where metaRow == nil {
            if runsOnGenericPlans, let number = PostgresPlainPages.number(of: statement.page) {
                fetched = try await connection.rows(ofPlainPage: number, binds: statement.binds, logger: logger)
            } else {
                fetched = try await connection.rows(of: (statement.page, statement.binds), logger: logger)
            }
            if let first = fetched.first {
                metaRow = first
                break
            }
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: statement.empty, binds: statement.binds), logger: logger) {
                let row = row.makeRandomAccess()
                if try !row["page_has_rows"].decode(Bool.self) { metaRow = row }
            }
        }
        guard let metaRow else { throw StoreUnavailable(store: store, reason: "the \(table) kept changing while an empty page of them was read") }
        let total = Int(try metaRow["listing_count"].decode(Int64.self))
        let beyond = try metaRow["beyond_cursor"].decode(Bool.self)
        let versions = try PostgresCatalogStore.versions(from: metaRow)
        let hasMoreInQueryDirection = fetched.count > request.pageSize
        if hasMoreInQueryDirection { fetched.removeLast() }
        func position(_ row: PostgresRandomAccessRow?) throws -> KeysetWalk.Position? {
            guard let row else { return nil }
            return (try .init(row["position_sort"]), try .init(row["position_key"]))
        }
        let (next, previous) = walk.cursors(
            firstRead: try position(fetched.first), lastRead: try position(fetched.last), hasMoreInQueryDirection: hasMoreInQueryDirection,
            hasRowsBehindCursor: beyond)
        if !walk.forward { fetched.reverse() }
        var rows = rows
        for row in fetched { try append(&rows, row) }
        return Page(rows: rows, count: total, nextCursor: next, previousCursor: previous, versions: versions)
    }
}

extension ListCursor.Value {
    /// A sort value or key as a row holds it: text, or an integer of any width.
    init(_ cell: PostgresCell) throws {
        if cell.bytes == nil {
            self = .null
        } else if cell.dataType == .text || cell.dataType == .varchar {
            self = .text(try cell.decode(String.self))
        } else {
            self = .integer(try cell.decode(Int64.self))
        }
    }
}
