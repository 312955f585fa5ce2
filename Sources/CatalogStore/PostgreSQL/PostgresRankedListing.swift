import CatalogStore
import Logging
import PostgresNIO

extension PostgresListing {
    /// How many matches a search has at most for its steps to be read from the search index and sorted.
    static let fewMatches = 20_000

    /// Whether a page of `request` is read along the ranks of `search` (`RankedWalk`), in several statements that
    /// need one snapshot: a `.read` transaction.
    func isRanked(_ request: PageRequest, _ search: SearchQuery?) throws -> Bool {
        try search != nil && searchIndex != nil && ordering.resolveOrdering(request).field == ListOrdering.relevance
    }

    /// The conditions that select the rows `filters` and `search` do.
    func selecting(_ filters: PostgresConditions, _ search: SearchQuery?) -> PostgresConditions {
        guard let searchIndex else { return filters }
        var selected = filters
        selected.addSearch(search, searchIndex)
        return selected
    }

    /// The statement that reads the rows `filters` select along one step of a ranked walk of `search`, at most
    /// `limit` of them, in the order the rows were first stored (`PostgresPlanTests` asks PostgreSQL's plans).
    func stepStatement(_ step: RankedWalk.Step, search: SearchQuery, filters: PostgresConditions, limit: Int) -> (
        sql: String, binds: PostgresBindings
    ) {
        guard let searchIndex else { return ("SELECT \(columns) FROM \(table) WHERE false", filters.binds) }
        var statement = filters
        statement.add(searchIndex.condition(search, rank: step.rank, &statement))
        let order = searchIndex.orderColumn
        if let beyond = step.beyond { statement.add("\(order) \(step.ascending ? ">" : "<") \(statement.parameter(beyond))") }
        let sql = """
            SELECT \(columns), \(order) AS match_order, \(keyColumn) AS match_key FROM \(table) \(statement.whereSQL)
            ORDER BY \(order) \(step.ascending ? "ASC" : "DESC") LIMIT \(statement.parameter(Int64(limit)))
            """
        return (sql, statement.binds)
    }

    /// Reads one page of the rows `filters` and `search` select: along the search's ranks when ordered by relevance
    /// (in a `.read` transaction: `isRanked`), by the keyset of its ordering otherwise (`page`).
    func page<Rows: PageRows>(
        _ connection: PostgresConnection, request: PageRequest, filters: PostgresConditions, search: SearchQuery?, count: String?,
        store: String, logger: Logger, into rows: Rows, append: (inout Rows, PostgresRandomAccessRow) throws -> Void
    ) async throws -> Page<Rows> {
        let selected = selecting(filters, search)
        guard let search, let searchIndex, try isRanked(request, search) else {
            return try await page(
                connection, request: request, conditions: selected, count: count, store: store, logger: logger, into: rows, append: append)
        }
        let walk = try RankedWalk(request, ordering: ordering, ranks: searchIndex.fields.ranks.count)
        /// Reads the matches of one step, at most `limit`, handing each to `body` with its position.
        func read(_ step: RankedWalk.Step, limit: Int, _ body: (PostgresRandomAccessRow, RankedWalk.Position) throws -> Void) async throws {
            guard !search.matchesNothing else { return }
            let statement = stepStatement(step, search: search, filters: filters, limit: limit)
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: statement.sql, binds: statement.binds), logger: logger) {
                let row = row.makeRandomAccess()
                let position = RankedWalk.Position(
                    rank: step.rank, order: try row["match_order"].decode(Int64.self), key: try .init(row["match_key"]))
                try body(row, position)
            }
        }
        // The count and the versions in one statement, from the transaction's snapshot like the steps. (Changing a
        // setting in the same statement would cost no round trip, but set_config is unsafe in parallel: the count of
        // a word most rows hold, which PostgreSQL counts with two workers, then took three times as long.)
        let countSQL = count ?? "SELECT COUNT(*) FROM \(table) \(selected.whereSQL)"
        var total = 0
        var versions: StoreVersions?
        let meta = "SELECT COALESCE((\(countSQL)), 0)::bigint AS listing_count, \(PostgresCatalogStore.versionColumns)"
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: meta, binds: selected.binds), logger: logger) {
            let row = row.makeRandomAccess()
            total = Int(try row["listing_count"].decode(Int64.self))
            versions = try PostgresCatalogStore.versions(from: row)
        }
        // A step reads its rank's matches in row order: the planner walks the row_order index and checks each row,
        // which finds a page at once when matches are many, and reads the whole table when they are few (it reckons
        // any word matches a thousandth of the rows). With few matches, the GIN index gives them all and they are
        // sorted: told so for the rest of this read-only transaction, where the setting ends (what a caller reads
        // after the page in it, a film's links, reads small tables). No match, no step to read.
        if total > 0, total <= Self.fewMatches {
            let sql = "SELECT set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)"
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
        var rows = rows
        var positions: [RankedWalk.Position] = []
        for step in total == 0 ? [] : walk.steps where positions.count <= walk.pageSize {
            try await read(step, limit: walk.pageSize + 1 - positions.count) { row, position in
                if positions.count < walk.pageSize { try append(&rows, row) }
                positions.append(position)
            }
        }
        var hasRowsBehind = false
        for step in total == 0 ? [] : walk.stepsBehind where !hasRowsBehind {
            try await read(step, limit: 1) { _, _ in hasRowsBehind = true }
        }
        if walk.readsBackwards { rows.reverse() }
        let (next, previous) = walk.cursors(positions, hasRowsBehind: hasRowsBehind)
        guard let versions else { throw StoreUnavailable(store: store, reason: "the count of a search returned no row") }
        return Page(rows: rows, count: total, nextCursor: next, previousCursor: previous, versions: versions)
    }
}
