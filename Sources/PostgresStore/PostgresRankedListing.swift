import CatalogStore
import Logging
import PostgresNIO

extension PostgresListing {
    /// The reads this engine has: every one (`SearchRead`).
    static let searchReads = Set(SearchRead.allCases)

    /// Whether a page of `request` is read in `search`'s ranks (`RankedWalk`).
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
    /// `meta`, when given, are more columns of each row: scalar queries on the filters' parameters.
    func stepStatement(_ step: RankedWalk.Step, search: SearchQuery, filters: PostgresConditions, limit: Int, meta: String? = nil) -> (
        sql: String, binds: PostgresBindings
    ) {
        guard let searchIndex else { return ("SELECT \(columns) FROM \(table) WHERE false", filters.binds) }
        var statement = filters
        let order = searchIndex.orderColumn
        if let fieldRank = leading.fieldRank(step.rank) {
            statement.add(searchIndex.condition(search, rank: fieldRank, &statement))
            if !leading.isEmpty { statement.add("NOT (\(order) = ANY(\(statement.parameter(leading.orders))))") }
        } else {
            statement.add("\(order) = ANY(\(statement.parameter(leading.orders)))")
        }
        if let beyond = step.beyond { statement.add("\(order) \(step.ascending ? ">" : "<") \(statement.parameter(beyond))") }
        let sql = """
            SELECT \(columns), \(order) AS match_order, \(keyColumn) AS match_key\(meta.map { ", " + $0 } ?? "") FROM \(table) \(statement.whereSQL)
            ORDER BY \(order) \(step.ascending ? "ASC" : "DESC") LIMIT \(statement.parameter(Int64(limit)))
            """
        return (sql, statement.binds)
    }

    /// Where the statement of a page of few matches applies the list's filters (`matchesStatement`).
    enum FilterPlacement: CaseIterable, Sendable {
        /// To the matches of the search alone, which the search index gives: the planner cannot add a filter's index
        /// to it, as it does for a selective word in a large category (the category's 80,000 entries read to narrow
        /// 600 matches). A search that most rows match finds more than `fewMatchLimit` at once, at the rows' start.
        case onSearchMatches
        /// In the statement's conditions, where the planner may use any index: a search that many rows match may
        /// still have few matches among the rows the filters select.
        case inConditions
    }

    /// Where the statement of a page of few matches finds them (`matchesStatement`), for each read of every match at
    /// once.
    enum MatchSource: Equatable, Sendable {
        /// The rows the search index gives, each read to tell its rank, the filters placed as said.
        case rows(FilterPlacement)
        /// The entries of the search's one word or typed prefix in the search index's `wordRunsTable`, which tell each
        /// match's rank and order without reading its row; for a list without filters
        /// (`PostgresSearchIndex.wordCondition`).
        case words

        /// The source of `read`; nil for a read of another kind.
        init?(_ read: SearchRead) {
            switch read {
            case .wordEntries: self = .words
            case .matchesThenFilters: self = .rows(.onSearchMatches)
            case .matchesWithFilters: self = .rows(.inConditions)
            case .nothing, .keyset, .bestRankFirst, .walk: return nil
            }
        }

        var read: SearchRead {
            switch self {
            case .words: .wordEntries
            case .rows(.onSearchMatches): .matchesThenFilters
            case .rows(.inConditions): .matchesWithFilters
            }
        }
    }

    /// The one statement that reads a page of a search with few matches, ranked (`PostgresPlanTests` asks
    /// PostgreSQL's plans): the search's candidates from `source`, `fewMatchLimit + 1` at most, each with its rank
    /// and whether the filters select it, read without regard to order; the page of the selected ones on the far side
    /// of the cursor, sorted; and in the same row, one row at least (the page's columns null when it is empty), the
    /// count of the candidates and of the selected ones, whether a selected one lies behind the cursor, and the
    /// versions. A whole word's page is read from its runs, which hold its matches in page order, and its count from
    /// the kept counts, whatever the word. A candidate count above `candidateLimit` says that there are
    /// more, and -1 (from `wordRunsTable`) that the search has no entries of its own: the next source is tried, or the
    /// ranks are walked (`page`). Nil when the source cannot answer the search.
    func matchesStatement(
        _ walk: RankedWalk, search: SearchQuery, filters: PostgresConditions, source: MatchSource
    ) -> (sql: String, binds: PostgresBindings)? {
        guard let searchIndex else { return nil }
        var statement = filters
        let direction = walk.readsAscending ? "ASC" : "DESC"
        let candidates: String
        let candidateCount: String
        var selectedCount = "(SELECT COUNT(*) FROM matches WHERE match_selected)"
        var (pageSide, behind) = ("match_selected", "false")
        var pageMatches: String?
        switch source {
        case .rows(let placement):
            var selected = "true"
            if placement == .onSearchMatches, !filters.clauses.isEmpty {
                // The filters keep their parameters, read on each candidate; the search alone selects the rows.
                statement.clauses = []
                selected = "(" + filters.clauses.joined(separator: " AND ") + ")"
            }
            statement.addSearch(search, searchIndex)
            var rank = search.matchesNothing ? "0" : searchIndex.rankExpression(search, &statement)
            if !leading.isEmpty {
                rank = "CASE WHEN \(searchIndex.orderColumn) = ANY(\(statement.parameter(leading.orders))) THEN 0 ELSE 1 + \(rank) END"
            }
            candidates = """
                matches AS MATERIALIZED (SELECT \(searchIndex.orderColumn) AS match_order, \(rank) AS match_rank, \(selected) AS match_selected
                FROM \(table) \(statement.whereSQL) LIMIT \(statement.parameter(Int64(planner.fewMatchLimit + 1))))
                """
            candidateCount = "(SELECT COUNT(*) FROM matches)"
        case .words:
            // A typed prefix's words, and a lead's, are merged by `leadPage`.
            guard search.isWholeWord, let runsTable = searchIndex.wordRunsTable, let wordCountsTable = searchIndex.wordCountsTable,
                filters.clauses.isEmpty, let word = searchIndex.wordCondition(search, &statement)
            else { return nil }
            // The word's runs are its matches in the walk's order, and their number is kept: the page reads the runs
            // that hold it (`wordPageRuns`), whatever the word.
            let kept = "SELECT products FROM \(wordCountsTable) WHERE word = (SELECT word FROM term)"
            let runs = wordPageRuns(walk, word: word.entries, runsTable: runsTable, &statement)
            candidates = """
                term AS MATERIALIZED (\(word.term)),
                counted AS MATERIALIZED (SELECT COALESCE((\(kept)), 0) AS matches),
                word_entries AS MATERIALIZED (\(searchIndex.runEntries("true", runs: "(\(runs.page))")))
                """
            candidateCount = "CASE WHEN (SELECT one_lexeme FROM term) THEN (SELECT matches FROM counted) ELSE -1 END"
            selectedCount = "(SELECT matches FROM counted)"
            var beyond = ""
            if let cursor = runs.cursor {
                beyond = " WHERE (rank, product_order) \(walk.readsAscending ? ">" : "<") \(cursor)"
                behind = runs.behind
            }
            pageMatches = """
                SELECT product_order AS match_order, rank AS match_rank FROM word_entries\(beyond)
                ORDER BY rank \(direction), product_order \(direction)
                """
        }
        if pageMatches == nil, let cursor = walk.cursorPosition {
            let position = "(match_rank::bigint << \(RankedWalk.orderBits)) | match_order"
            let beyond = "\(position) \(walk.readsAscending ? ">" : "<") \(statement.parameter(cursor))"
            pageSide = "match_selected AND \(beyond)"
            behind = "EXISTS (SELECT 1 FROM matches WHERE match_selected AND NOT (\(beyond)))"
        }
        let sortedMatches =
            pageMatches ?? "SELECT match_order, match_rank FROM matches WHERE \(pageSide) ORDER BY match_rank \(direction), match_order \(direction)"
        // The matches keep only what ranks and selects them; the page's own rows are read again by their order (a
        // fifth less work for 600 matches than carrying every column of each), in no set order: `fewMatchesPage`
        // sorts them.
        let sql = """
            WITH \(candidates)
            SELECT page.*, meta.* FROM (
            SELECT \(candidateCount)::bigint AS candidate_count, \(selectedCount)::bigint
            AS listing_count, \(behind) AS beyond_cursor, \(PostgresCatalogStore.versionColumns)
            ) AS meta LEFT JOIN LATERAL (
            SELECT \(columns), sorted.*, \(table).\(keyColumn) AS match_key FROM (
            \(sortedMatches)
            LIMIT \(statement.parameter(Int64(walk.pageSize + 1)))) AS sorted JOIN \(table) ON \(table).\(searchIndex.orderColumn) = sorted.match_order
            ) AS page ON true
            """
        return (sql, statement.binds)
    }

    /// The runs of a whole word that hold its page in the walk's order (`matchesStatement`), as a subquery of the
    /// runs table: from the run that holds the cursor, or the first, as many as hold the page's matches and one match
    /// more, and `pageSize + 2` at most in the walk's order (`coveringPage`). With a cursor, also the cursor as a
    /// row value of parameters, and whether the word has matches behind it.
    private func wordPageRuns(_ walk: RankedWalk, word: String, runsTable: String, _ statement: inout PostgresConditions) -> (
        page: String, cursor: String?, behind: String
    ) {
        let runs = statement.parameter(Int64(walk.pageSize + 2))
        let direction = walk.readsAscending ? "ASC" : "DESC"
        let walked = "rank \(direction), first_order \(direction)"
        let ordered = "ORDER BY \(walked) LIMIT \(runs)"
        // The first run may hold no match past the cursor; each after it holds as many as it has: the runs after the
        // first are read while those before them hold fewer than the page needs. Full runs of 200 hold a page of 20
        // in two, where the bound alone read 22 (4,400 entries, sorted). The page needs one match more than its size,
        // one fewer than the bound.
        let coveringPage = { (selected: String) in
            """
            SELECT * FROM (SELECT selected.*, SUM(cardinality(orders)) OVER walked - cardinality(orders)
            - first_value(cardinality(orders)) OVER walked AS page_entries_before
            FROM (\(selected)) AS selected WINDOW walked AS (ORDER BY \(walked) ROWS UNBOUNDED PRECEDING)) AS runs
            WHERE page_entries_before < \(runs) - 1
            """
        }
        guard let start = walk.cursorStart else {
            return (coveringPage("SELECT * FROM \(runsTable) WHERE \(word) \(ordered)"), nil, "false")
        }
        let (rank, order) = (statement.parameter(Int64(start.rank)), statement.parameter(start.order))
        let cursor = "(\(rank), \(order))"
        let holding = """
            SELECT first_order FROM \(runsTable) WHERE \(word) AND rank = \(rank) AND first_order <= \(order) ORDER BY first_order DESC LIMIT 1
            """
        guard walk.readsAscending else {
            // A run that starts before the cursor holds a match before it; one that starts at or past it, or the run
            // before it reaching it, one at or past it.
            let reaching = """
                SELECT 1 FROM (SELECT orders FROM \(runsTable) WHERE \(word) AND rank = \(rank) AND first_order < \(order)
                ORDER BY first_order DESC LIMIT 1) AS run WHERE run.orders[cardinality(run.orders)] >= \(order)
                """
            return (
                coveringPage("SELECT * FROM \(runsTable) WHERE \(word) AND (rank, first_order) < \(cursor) \(ordered)"), cursor,
                "(EXISTS (SELECT 1 FROM \(runsTable) WHERE \(word) AND (rank, first_order) >= \(cursor)) OR EXISTS (\(reaching)))"
            )
        }
        return (
            coveringPage("SELECT * FROM \(runsTable) WHERE \(word) AND (rank, first_order) >= (\(rank), COALESCE((\(holding)), -1)) \(ordered)"),
            cursor,
            "EXISTS (SELECT 1 FROM \(runsTable) WHERE \(word) AND (rank, first_order) <= \(cursor))"
        )
    }

    /// What the statement of a page of few matches read (`fewMatchesPage`).
    enum FewMatches<Rows: PageRows & Sendable> {
        case page(Page<Rows>)
        /// More candidates than `SearchPlanner.candidateLimit`: this many.
        case more(candidates: Int)
        /// The source cannot answer the search.
        case unanswered
    }

    /// A page of a search with few matches, read in one statement (`matchesStatement`).
    func fewMatchesPage<Rows: PageRows>(
        _ connection: PostgresConnection, walk: RankedWalk, filters: PostgresConditions, search: SearchQuery, source: MatchSource,
        store: String, logger: Logger, into rows: Rows, append: (inout Rows, PostgresRandomAccessRow) throws -> Void
    ) async throws -> FewMatches<Rows> {
        guard let statement = matchesStatement(walk, search: search, filters: filters, source: source) else { return .unanswered }
        var fetched =
            if let genericPlans, let page = PostgresPreparedRead<PostgresFirstWordPage>(statement) {
                try await genericPlans.rows(of: page, logger: logger)
            } else {
                try await connection.rows(of: statement, preparedAs: PostgresFirstWordPage.self, logger: logger)
            }
        guard let meta = fetched.first else { throw StoreUnavailable(store: store, reason: "the matches of a search returned no row") }
        let candidates = try meta["candidate_count"].decode(Int64.self)
        guard candidates >= 0 else { return .unanswered }
        guard candidates <= planner.candidateLimit(source.read, search) else { return .more(candidates: Int(candidates)) }
        let total = Int(try meta["listing_count"].decode(Int64.self))
        let versions = try PostgresCatalogStore.versions(from: meta)
        let hasRowsBehind = try meta["beyond_cursor"].decode(Bool.self)
        if meta["match_order"].bytes == nil { fetched = [] }
        var read = try fetched.map { row in
            let position = try Self.position(row, rank: try row["match_rank"].decode(Int.self))
            return (row: row, position: position, sortValue: RankedWalk.position(rank: position.rank, order: position.order))
        }
        read.sort { walk.readsAscending ? $0.sortValue < $1.sortValue : $0.sortValue > $1.sortValue }
        var rows = rows
        for match in read.prefix(walk.pageSize) { try append(&rows, match.row) }
        let positions = read.map(\.position)
        if walk.readsBackwards { rows.reverse() }
        let (next, previous) = walk.cursors(positions, hasRowsBehind: hasRowsBehind)
        return .page(Page(rows: rows, count: total, nextCursor: next, previousCursor: previous, versions: versions, searchRead: source.read))
    }

    /// Reads one page of the rows `filters` and `search` select: by the keyset of its ordering (`page`) unless it is
    /// ordered by relevance (`isRanked`); then as `SearchPlanner` plans it. A read that declines tells how many matches
    /// it found when they are the search's (a whole word's entries), and the rest is planned again with that. A walk
    /// reads in several statements that need one snapshot: `walkIn` is the transaction they open, `.single` when the
    /// caller's transaction is one already.
    func page<Rows: PageRows>(
        _ connection: PostgresConnection, request: PageRequest, filters: PostgresConditions, search: SearchQuery?, count: String?,
        walkIn walkTransaction: PostgresTransactionKind, store: String, logger: Logger, into rows: Rows,
        append: (inout Rows, PostgresRandomAccessRow) throws -> Void
    ) async throws -> Page<Rows> {
        guard let search, let searchIndex, try isRanked(request, search) else {
            var page = try await page(
                connection, request: request, conditions: selecting(filters, search), count: count, store: store, logger: logger, into: rows,
                append: append)
            page.searchRead = search == nil ? nil : .keyset
            return page
        }
        let walk = try RankedWalk(request, ordering: ordering, ranks: leading.walkRanks(fieldRanks: searchIndex.fields.ranks.count))
        var facts = SearchPlanner.Facts(
            search: search, ranked: true, firstPage: walk.cursorPosition == nil, filtered: !filters.clauses.isEmpty, knownMatches: knownMatches,
            largestRowNumber: knownLargestRowNumber)
        var tried: Set<SearchRead> = []
        while let read = planner.plan(facts, tried: tried).first, read != .walk {
            tried.insert(read)
            if read == .bestRankFirst, let count,
                var page = try await firstRankPage(
                    connection, walk: walk, filters: filters, search: search, count: count, logger: logger, into: rows, append: append)
            {
                page.searchRead = read
                return page
            }
            guard let source = MatchSource(read) else { continue }
            logger.trace("reading a ranked page of few matches", metadata: ["search.source": "\(source)"])
            let answer =
                source == .words && (search.isTypedPrefix || lead != nil)
                ? try await leadPage(
                    connection, walk: walk, search: search, filters: filters, in: walkTransaction, store: store, logger: logger, into: rows,
                    append: append)
                : try await fewMatchesPage(
                    connection, walk: walk, filters: filters, search: search, source: source, store: store, logger: logger, into: rows,
                    append: append)
            switch answer {
            case .page(let page): return page
            // A whole word's entries are its matches, where a typed prefix has one for each of a row's words that
            // start with it.
            case .more(let candidates) where read == .wordEntries && search.isWholeWord: facts.knownMatches = candidates
            case .more, .unanswered: continue
            }
        }
        var page = try await connection.transaction(walkTransaction, logger: logger) { [facts] connection in
            try await walkedPage(
                connection, walk: walk, filters: filters, search: search, count: count, facts: facts, store: store, logger: logger,
                into: rows, append: append)
        }
        page.searchRead = .walk
        return page
    }

    /// The first page of a search with many matches when its first rank holds it: that rank's first matches in one
    /// statement, each row with the count (`count`, a scalar query on the filters' parameters) and the versions, so
    /// in one snapshot without a transaction; nil when the rank holds fewer than a page, which the walk then reads.
    private func firstRankPage<Rows: PageRows>(
        _ connection: PostgresConnection, walk: RankedWalk, filters: PostgresConditions, search: SearchQuery, count: String,
        logger: Logger, into rows: Rows, append: (inout Rows, PostgresRandomAccessRow) throws -> Void
    ) async throws -> Page<Rows>? {
        guard let step = walk.steps.first, !search.matchesNothing else { return nil }
        logger.trace("reading a first page from the best rank")
        let statement = stepStatement(step, search: search, filters: filters, limit: walk.pageSize + 1, meta: Self.countAndVersions(count))
        var fetched: [PostgresRandomAccessRow] = []
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: statement.sql, binds: statement.binds), logger: logger) {
            fetched.append(row.makeRandomAccess())
        }
        guard fetched.count > walk.pageSize, let first = fetched.first else { return nil }
        var rows = rows
        var positions: [RankedWalk.Position] = []
        for row in fetched {
            if positions.count < walk.pageSize { try append(&rows, row) }
            positions.append(try Self.position(row, rank: step.rank))
        }
        if walk.readsBackwards { rows.reverse() }
        let (next, previous) = walk.cursors(positions, hasRowsBehind: false)
        return Page(
            rows: rows, count: Int(try first["listing_count"].decode(Int64.self)), nextCursor: next, previousCursor: previous,
            versions: try PostgresCatalogStore.versions(from: first))
    }

    /// The columns of a ranked page's count (`count`, a scalar query) and the versions, as `walkedPage` and
    /// `firstRankPage` read them.
    private static func countAndVersions(_ count: String) -> String {
        "COALESCE((\(count)), 0)::bigint AS listing_count, \(PostgresCatalogStore.versionColumns)"
    }

    /// A page of a search with many matches, read along its ranks.
    private func walkedPage<Rows: PageRows>(
        _ connection: PostgresConnection, walk: RankedWalk, filters: PostgresConditions, search: SearchQuery, count: String?,
        facts: SearchPlanner.Facts, store: String, logger: Logger, into rows: Rows, append: (inout Rows, PostgresRandomAccessRow) throws -> Void
    ) async throws -> Page<Rows> {
        logger.trace("walking the ranks of a search")
        /// Reads the matches of one step, at most `limit`, handing each to `body` with its position.
        func read(_ step: RankedWalk.Step, limit: Int, _ body: (PostgresRandomAccessRow, RankedWalk.Position) throws -> Void) async throws {
            guard !search.matchesNothing else { return }
            let statement = stepStatement(step, search: search, filters: filters, limit: limit)
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: statement.sql, binds: statement.binds), logger: logger) {
                let row = row.makeRandomAccess()
                try body(row, try Self.position(row, rank: step.rank))
            }
        }
        // The count and the versions in one statement, from the transaction's snapshot like the steps. (Changing a
        // setting in the same statement would cost no round trip, but set_config is unsafe in parallel: the count of
        // a word most rows hold, which PostgreSQL counts with two workers, then took three times as long.)
        let selected = selecting(filters, search)
        let countSQL = count ?? "SELECT COUNT(*) FROM \(table) \(selected.whereSQL)"
        var total = 0
        var versions: StoreVersions?
        let meta = "SELECT \(Self.countAndVersions(countSQL))"
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
        if let searchIndex, planner.walkSortsMatches(total, facts, pageSize: walk.pageSize, ranks: searchIndex.fields.ranks.count) {
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

    /// The best match of each of `leads` (`SearchPlanner.Lead`) that `filters` select, as `LeadingRows`: the first
    /// entry of the lead's word in the words' order (its best rank, then the rows' order) whose row matches the
    /// lead's search, as SQLite finds it rank by rank (`SQLiteSearchIndex.leadingRows`). One statement: each run of
    /// the lead's word or typed prefix is asked for its first entry whose row matches, in the runs' order; a whole
    /// word's runs are disjoint, so the first run that has one holds the best, while a prefix's runs of several words
    /// interleave, so each is asked and the best of their answers taken.
    func leadingRows(
        _ leads: [SearchPlanner.Lead], filters: PostgresConditions, _ connection: PostgresConnection, store: String, logger: Logger
    ) async throws -> LeadingRows {
        guard let searchIndex, let runsTable = searchIndex.wordRunsTable else { return .none }
        var statement = filters
        let firstMatches = leads.compactMap { lead -> String? in
            let runs: String
            let wholeWord: Bool
            switch lead.word.parts.first {
            case .word(let word):
                runs = "run.word = \(statement.parameter(word))"
                wholeWord = true
            case .prefix(let prefix):
                let start = statement.parameter(prefix)
                runs = "run.word >= \(start) AND run.word < \(start) || chr(1114111)"
                wholeWord = false
            case .phrase, .anyWord, .anyPrefix, nil: return nil
            }
            let conditions = [searchIndex.condition(lead.search, &statement)] + filters.clauses
            let firstInRun = """
                SELECT entry.product_order FROM unnest(run.orders) AS entry (product_order)
                JOIN \(table) ON \(table).\(searchIndex.orderColumn) = entry.product_order
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY entry.product_order LIMIT 1
                """
            let firsts = "SELECT run.rank, (\(firstInRun)) AS first FROM \(runsTable) AS run WHERE \(runs)"
            return wholeWord
                ? "(SELECT first FROM (\(firsts) ORDER BY run.rank, run.first_order) AS firsts WHERE first IS NOT NULL LIMIT 1)"
                : "(SELECT first FROM (\(firsts)) AS firsts WHERE first IS NOT NULL ORDER BY rank, first LIMIT 1)"
        }
        guard !firstMatches.isEmpty else { return .none }
        let sql = "SELECT array_remove(ARRAY[\(firstMatches.joined(separator: ", "))]::bigint[], NULL) AS leads"
        guard let row = try await connection.rows(of: (sql, statement.binds), logger: logger).first else {
            throw StoreUnavailable(store: store, reason: "the leading rows of a search returned no row")
        }
        return LeadingRows(try row["leads"].decode([Int64].self))
    }

    /// Where a match a statement read stands in the walk: `rank`, and its `match_order` and `match_key` columns.
    static func position(_ row: PostgresRandomAccessRow, rank: Int) throws -> RankedWalk.Position {
        RankedWalk.Position(rank: rank, order: try row["match_order"].decode(Int64.self), key: try .init(row["match_key"]))
    }
}
