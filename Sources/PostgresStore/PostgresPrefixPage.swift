import CatalogStore
import Logging
import PostgresNIO

extension PostgresListing {
    /// A ranked page of one typed prefix without filters, from every run of the words it starts
    /// (`SearchRead.wordEntries`): the runs are read whole and merged here (`PrefixMatches`), which gives the exact
    /// count and the page at once, and the page's rows are read by their orders, in a transaction of its own, on the
    /// generic-plan pool when the listing has one (`PostgresPrefixRuns`; on `connection` in `transaction` otherwise).
    /// A prefix of 52,517 matches over 53 words (one of them 46,378 rows hold), whose runs hold 52,855 entries, had
    /// been walked through the search index in 214-245 ms, and grouped by the server in 80; read so, it takes about
    /// 10, half of it the server sending the runs' arrays.
    ///
    /// `.more` when the words' entries (their kept counts) are more than `SearchPlanner.candidateLimit`, or their
    /// orders span more than `PrefixMatches.widestSpan`; `.unanswered`
    /// when the search is not one typed prefix, the list has filters or leading rows, or the text folds to more than
    /// one lexeme (it then has no runs of its own).
    func prefixPage<Rows: PageRows>(
        _ connection: PostgresConnection, walk: RankedWalk, search: SearchQuery, filters: PostgresConditions,
        in transaction: PostgresTransactionKind, store: String, logger: Logger, into rows: Rows,
        append: (inout Rows, PostgresRandomAccessRow) throws -> Void
    ) async throws -> FewMatches<Rows> {
        guard search.isTypedPrefix, filters.clauses.isEmpty, leading.isEmpty, let searchIndex else { return .unanswered }
        let limit = planner.candidateLimit(.wordEntries, search)
        guard let statement = prefixRunsStatement(search, limit: limit) else { return .unanswered }
        let rowsSQL = rowsByOrderSQL(searchIndex)
        // A transaction of its own, on a connection that has both statements planned once for any prefix when there is one.
        let readPage: @Sendable (PostgresConnection) async throws -> PrefixRead = { connection in
            let read = try await connection.rows(of: statement, preparedAs: PostgresPrefixRuns.self, logger: logger)
            guard let first = read.first else { throw StoreUnavailable(store: store, reason: "the runs of a typed prefix returned no row") }
            guard try first["one_lexeme"].decode(Bool.self) else { return .unanswered }
            let entries = Int(try first["entries"].decode(Int64.self))
            guard entries <= limit else { return .more(entries) }
            let versions = try PostgresCatalogStore.versions(from: first)
            let runs = try read.compactMap { row in try row["rank"].decode(Int?.self).map { ($0, row["orders"].bytes ?? ByteBuffer()) } }
            guard let matches = try PrefixMatches(runs) else { return .more(entries) }
            let page = matches.page(walk)
            var orders = PostgresBindings()
            orders.append(page.matches.map(\.order))
            let fetched = try await connection.rows(of: (rowsSQL, orders), preparedAs: PostgresPrefixRows.self, logger: logger)
            return .page(page, count: matches.count, versions: versions, rows: fetched)
        }
        let read =
            if let genericPlans {
                try await genericPlans.transaction(.read, logger: logger, readPage)
            } else {
                try await connection.transaction(transaction, logger: logger, readPage)
            }
        switch read {
        case .unanswered: return .unanswered
        case .more(let entries): return .more(candidates: entries)
        case .page(let page, let count, let versions, let fetched):
            var byOrder: [Int64: PostgresRandomAccessRow] = [:]
            for row in fetched { byOrder[try row["match_order"].decode(Int64.self)] = row }
            var rows = rows
            var positions: [RankedWalk.Position] = []
            for match in page.matches {
                // A row deleted since is in neither the runs nor the rows of this snapshot; every order of the page is.
                guard let row = byOrder[match.order] else {
                    throw StoreUnavailable(store: store, reason: "a typed prefix's runs named a row the products do not hold")
                }
                if positions.count < walk.pageSize { try append(&rows, row) }
                positions.append(try Self.position(row, rank: match.rank))
            }
            if walk.readsBackwards { rows.reverse() }
            let (next, previous) = walk.cursors(positions, hasRowsBehind: page.hasRowsBehind)
            return .page(Page(rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: versions, searchRead: .wordEntries))
        }
    }

    /// The statement of `prefixPage` that reads the runs of `search`, a typed prefix: one row for each rank, with every
    /// run's orders in it one after the other, when the words' entries are at most `limit` (their counts are kept);
    /// one row with none otherwise. Each row has the versions. Nil when the list has no runs or `search` is not one
    /// typed prefix.
    func prefixRunsStatement(_ search: SearchQuery, limit: Int) -> (sql: String, binds: PostgresBindings)? {
        var statement = PostgresConditions()
        guard search.isTypedPrefix, let searchIndex, let runsTable = searchIndex.wordRunsTable, let countsTable = searchIndex.wordCountsTable,
            let word = searchIndex.wordCondition(search, &statement)
        else { return nil }
        let sql = """
            WITH term AS MATERIALIZED (\(word.term)),
            counted AS MATERIALIZED (SELECT COALESCE((SELECT SUM(products) FROM \(countsTable) WHERE \(word.entries)), 0)::bigint AS entries)
            SELECT (SELECT one_lexeme FROM term) AS one_lexeme, (SELECT entries FROM counted) AS entries, \(PostgresCatalogStore.versionColumns),
            runs.rank, runs.orders FROM (SELECT 1) AS meta LEFT JOIN LATERAL (
            SELECT rank, string_agg(array_send(orders), ''::bytea) AS orders FROM \(runsTable)
            WHERE \(word.entries) AND (SELECT one_lexeme FROM term) AND (SELECT entries FROM counted) <= \(statement.parameter(Int64(limit)))
            GROUP BY rank) AS runs ON true
            """
        return (sql, statement.binds)
    }

    /// The statement that reads the rows whose orders are `$1`, each with its order and key.
    func rowsByOrderSQL(_ searchIndex: PostgresSearchIndex) -> String {
        """
        SELECT \(columns), \(searchIndex.orderColumn) AS match_order, \(keyColumn) AS match_key FROM \(table)
        WHERE \(searchIndex.orderColumn) = ANY($1)
        """
    }

    /// What the transaction of `prefixPage` read.
    private enum PrefixRead: Sendable {
        case unanswered
        case more(Int)
        case page(PrefixMatches.Page, count: Int, versions: StoreVersions, rows: [PostgresRandomAccessRow])
    }
}
