import CatalogStore
import Logging
import PostgresNIO

extension PostgresListing {
    /// A ranked page of one typed prefix, or of a search of several parts read from its lead (`lead`), without filters
    /// (`SearchRead.wordEntries`): every run of the words the prefix or the lead starts is read whole and merged here
    /// (`RankedMatches`), with the lead's other words' ranks from their sets, which gives the exact count and the page
    /// at once; a row a change since the sets touched is ranked by the search index. The page's rows are read by their
    /// orders, with the versions, on the generic-plan pool when the listing has one (`PostgresLeadStatements.swift`; on
    /// `connection` otherwise), in a transaction of its own only when a write came between the runs and the rows. A prefix of 52,517 matches over 53 words (one of them 46,378 rows
    /// hold), whose runs hold 52,855 entries, had been walked through the search index in 214-245 ms, and grouped by
    /// the server in 80; read so, it takes about 10, half of it the server sending the runs' arrays.
    ///
    /// `.more` when the entries (their kept counts) are more than `SearchPlanner.candidateLimit`, or their orders span
    /// more than `RankedMatches.widestSpan`; `.unanswered` when the search is neither, the list has filters or leading
    /// rows, or the text folds to more than one lexeme (it then has no runs of its own).
    func leadPage<Rows: PageRows>(
        _ connection: PostgresConnection, walk: RankedWalk, search: SearchQuery, filters: PostgresConditions,
        in transaction: PostgresTransactionKind, store: String, logger: Logger, into rows: Rows,
        append: (inout Rows, PostgresRandomAccessRow) throws -> Void
    ) async throws -> FewMatches<Rows> {
        guard search.isTypedPrefix || lead != nil, filters.clauses.isEmpty, leading.isEmpty, let searchIndex else { return .unanswered }
        let limit = planner.candidateLimit(.wordEntries, search)
        let runsSearch = lead?.search ?? search
        guard let statement = leadRunsStatement(runsSearch, limit: limit) else { return .unanswered }
        let rowsSQL = rowsByOrderSQL(searchIndex)
        let (table, lead, changedOrders) = (table, lead, changedOrders)
        // On a connection that has the statements planned once for any prefix when there is one.
        let readPage: @Sendable (PostgresConnection) async throws -> LeadRead = { connection in
            var matches: RankedMatches
            var runsVersions: StoreVersions?
            if let lead, lead.fromSets {
                // A typed prefix whose rows the sets hold: no runs to read.
                guard let fromSets = lead.matchesFromSets(changedOrders: changedOrders) else { return .more(limit + 1) }
                matches = fromSets
            } else {
                let read =
                    runsSearch.isWholeWord
                    ? try await connection.rows(of: statement, preparedAs: PostgresLeadWordRuns.self, logger: logger)
                    : try await connection.rows(of: statement, preparedAs: PostgresPrefixRuns.self, logger: logger)
                guard let first = read.first else { throw StoreUnavailable(store: store, reason: "the runs of a search's lead returned no row") }
                guard try first["one_lexeme"].decode(Bool.self) else { return .unanswered }
                let entries = Int(try first["entries"].decode(Int64.self))
                guard entries <= limit else { return .more(entries) }
                runsVersions = try PostgresCatalogStore.versions(from: first)
                let runs = try read.compactMap { row in try row["rank"].decode(Int?.self).map { ($0, row["orders"].bytes ?? ByteBuffer()) } }
                let ordersByRank = try PostgresRunOrders.byRank(runs)
                guard let fromRuns = RankedMatches(ordersByRank: ordersByRank, others: lead?.others() ?? { _ in .rank(0) }) else {
                    return .more(entries)
                }
                matches = fromRuns
            }
            if !matches.undecided.isEmpty {
                var ranks: [Int64: Int] = [:]
                let ranksStatement = searchIndex.ranksStatement(search, orders: matches.undecided, table: table)
                for row in try await connection.rows(of: ranksStatement, logger: logger) {
                    ranks[try row["match_order"].decode(Int64.self)] = try row["match_rank"].decode(Int.self)
                }
                matches.decide(ranks)
            }
            let page = matches.page(walk)
            var orders = PostgresBindings()
            orders.append(page.matches.map(\.order))
            let fetched = try await connection.rows(of: (rowsSQL, orders), preparedAs: PostgresRowsByOrder.self, logger: logger)
            guard let first = fetched.first else { throw StoreUnavailable(store: store, reason: "the rows of a search's page returned no row") }
            let versions = try PostgresCatalogStore.versions(from: first)
            return .page(page, count: matches.count, versions: versions, rows: fetched, consistent: runsVersions.map { $0 == versions } ?? true)
        }
        // A lead's other words are told by sets made exact at the caller's snapshot: inside the caller's transaction, the
        // page is read in it; outside one, the caller checks that the page's snapshot has the versions it read them at.
        // Outside one, the statements first run each on a snapshot of its own, every one no older than the one before:
        // the runs and the rows read at the same versions read the same products, and a write between them has the
        // page read again in a transaction of its own (two round trips more). A page from a prefix's own sets reads no
        // runs: its rows are of the versions the caller read when the rows' are those.
        let onGenericPlans = genericPlans != nil && (lead == nil || transaction != .single)
        func readOnce(inTransaction: Bool) async throws -> LeadRead {
            if onGenericPlans, let genericPlans {
                return try await genericPlans.transaction(inTransaction ? .read : .single, logger: logger, readPage)
            }
            return try await connection.transaction(inTransaction ? transaction : .single, logger: logger, readPage)
        }
        var read = try await readOnce(inTransaction: false)
        if case .page(_, _, _, _, consistent: false) = read { read = try await readOnce(inTransaction: true) }
        switch read {
        case .unanswered: return .unanswered
        case .more(let entries): return .more(candidates: entries)
        case .page(let page, let count, let versions, let fetched, _):
            var byOrder: [Int64: PostgresRandomAccessRow] = [:]
            for row in fetched {
                if let order = try row["match_order"].decode(Int64?.self) { byOrder[order] = row }
            }
            var rows = rows
            var positions: [RankedWalk.Position] = []
            for match in page.matches {
                // A row deleted since is in neither the runs nor the rows of this snapshot; every order of the page is.
                guard let row = byOrder[match.order] else {
                    throw StoreUnavailable(store: store, reason: "a search's runs named a row the products do not hold")
                }
                if positions.count < walk.pageSize { try append(&rows, row) }
                positions.append(try Self.position(row, rank: match.rank))
            }
            if walk.readsBackwards { rows.reverse() }
            let (next, previous) = walk.cursors(positions, hasRowsBehind: page.hasRowsBehind)
            return .page(Page(rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: versions, searchRead: .wordEntries))
        }
    }

    /// The statement of `leadPage` that reads the runs of `search`, one whole word or typed prefix: one row for each
    /// rank, with every run's orders in it one after the other, when the entries are at most `limit` (their counts
    /// are kept); one row with none otherwise. Each row has the versions. Nil when the list has no runs or `search` is
    /// not one word or typed prefix.
    func leadRunsStatement(_ search: SearchQuery, limit: Int) -> (sql: String, binds: PostgresBindings)? {
        var statement = PostgresConditions()
        guard search.isTypedPrefix || search.isWholeWord, let searchIndex, let runsTable = searchIndex.wordRunsTable,
            let countsTable = searchIndex.wordCountsTable, let word = searchIndex.wordCondition(search, &statement)
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

    /// The statement that reads the rows whose orders are `$1`, each with its order and key, and the versions after
    /// them (a row's columns are read in order): one row of versions alone when there are none.
    func rowsByOrderSQL(_ searchIndex: PostgresSearchIndex) -> String {
        """
        SELECT page.*, \(PostgresCatalogStore.versionColumns) FROM (SELECT 1) AS meta LEFT JOIN LATERAL (
        SELECT \(columns), \(searchIndex.orderColumn) AS match_order, \(keyColumn) AS match_key FROM \(table)
        WHERE \(searchIndex.orderColumn) = ANY($1)) AS page ON true
        """
    }

    /// What the transaction of `leadPage` read.
    private enum LeadRead: Sendable {
        case unanswered
        case more(Int)
        /// `consistent` when the runs, if any, were read at the rows' versions.
        case page(RankedMatches.Page, count: Int, versions: StoreVersions, rows: [PostgresRandomAccessRow], consistent: Bool)
    }
}
