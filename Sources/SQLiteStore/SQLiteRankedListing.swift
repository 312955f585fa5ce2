import CatalogStore
import GRDB
import GRDBSQLite

extension SQLiteListing {
    /// The reads this engine has: a walk of a search's ranks along FTS5's matches, which gives them in row order; a
    /// search of several parts read from its lead (`SearchLead`), whose matches FTS5 gives rank by rank, one column
    /// group at a time; and the keyset of an ordering. FTS5 tells a match's rank only by a query of each rank, so a
    /// search of one part is walked: its walk reads as many matches as its page shows.
    static let searchPlanner = {
        var planner = SearchPlanner(reads: [.nothing, .keyset, .wordEntries, .walk])
        planner.leadEntryLimit = leadEntries
        return planner
    }()

    /// How many entries a search's lead has at most (`SearchLead`) for SQLite to read them all: FTS5 reads a word's
    /// entries once for each rank's columns, about 0.5 µs an entry each time, and merges every word a typed prefix
    /// starts before it gives the first match (36 ms for a prefix of 59,000 at a million products), where a walk finds
    /// a page of a common word with a prefix of that many in 17.
    static let leadEntries = 20_000

    /// Reads one page of the rows `filters` and `search` select, as `searchPlanner` plans it: along the search index's
    /// ranks when the page is ordered by relevance (`RankedWalk`), `leading` rows first, or from `lead` when it has one;
    /// by the keyset of its ordering otherwise. Returns the cursors of the pages on either side, when there are rows
    /// there, how a search was read, and its count when the read told it.
    func page<Source: SQLiteReading, Rows: PageRows>(
        _ source: Source, request: PageRequest, filters: SQLiteConditions, search: SearchQuery?, leading: LeadingRows = .none,
        lead: SearchLead? = nil, into rows: inout Rows,
        append: (inout Rows, Source.Row, SQLiteStatement) throws -> Void
    ) throws -> (next: String?, previous: String?, read: SearchRead?, count: Int?) {
        let facts = SearchPlanner.Facts(
            search: search, ranked: try searchIndex != nil && ordering.resolveOrdering(request).field == ListOrdering.relevance,
            firstPage: request.cursor == nil, filtered: !filters.clauses.isEmpty)
        let plan = Self.searchPlanner.plan(facts)
        guard let search, let searchIndex, plan.last == .walk else {
            let (next, previous) = try page(source, request: request, conditions: selecting(filters, search), into: &rows, append: append)
            return (next, previous, search == nil ? nil : .keyset, nil)
        }
        let walk = try RankedWalk(request, ordering: ordering, ranks: leading.walkRanks(fieldRanks: searchIndex.fields.ranks.count))
        if plan.contains(.wordEntries), filters.clauses.isEmpty, leading.isEmpty, let lead,
            let answer = try leadPage(
                source, walk: walk, search: search, lead: lead, limit: Self.searchPlanner.candidateLimit(.wordEntries, search), into: &rows,
                append: append)
        {
            return (answer.next, answer.previous, .wordEntries, answer.count)
        }
        var positions: [RankedWalk.Position] = []
        /// Reads the matches of one step, at most `limit`, handing each to `body` with its position.
        func read(_ step: RankedWalk.Step, limit: Int, _ body: (Source.Row, SQLiteStatement, RankedWalk.Position) throws -> Void) throws {
            guard !search.matchesNothing else { return }
            let (sql, arguments) = searchIndex.stepStatement(
                step, query: search, leading: leading, limit: limit, listed: table, columns: columns, keyColumn: keyColumn, filters: filters)
            try source.forEachRow(sql, arguments) { row, statement in
                let columns = DirectRow(statement: statement)
                let position = RankedWalk.Position(rank: step.rank, order: columns.integer(RankedColumn.order), key: columns.value(RankedColumn.key))
                try body(row, statement, position)
                return true
            }
        }
        for step in walk.steps where positions.count <= walk.pageSize {
            try read(step, limit: walk.pageSize + 1 - positions.count) { row, statement, position in
                if positions.count < walk.pageSize { try append(&rows, row, statement) }
                positions.append(position)
            }
        }
        var hasRowsBehind = false
        for step in walk.stepsBehind where !hasRowsBehind {
            try read(step, limit: 1) { _, _, _ in hasRowsBehind = true }
        }
        if walk.readsBackwards { rows.reverse() }
        let (next, previous) = walk.cursors(positions, hasRowsBehind: hasRowsBehind)
        return (next, previous, .walk, nil)
    }

    /// A ranked page of `search` read from its lead (`SearchLead`): the lead's matches in each rank's columns, at most
    /// `limit` entries in all, merged with the other words' ranks from their sets (`RankedMatches`); a row a change
    /// since the sets touched is ranked by the search index itself. The page's rows are read by their row numbers.
    /// Nil when the lead has more entries than `limit` (a typed prefix's as the sets' vocabulary counts them), or its
    /// matches span more than `RankedMatches.widestSpan`.
    private func leadPage<Source: SQLiteReading, Rows: PageRows>(
        _ source: Source, walk: RankedWalk, search: SearchQuery, lead: SearchLead, limit: Int, into rows: inout Rows,
        append: (inout Rows, Source.Row, SQLiteStatement) throws -> Void
    ) throws -> (next: String?, previous: String?, count: Int)? {
        guard let searchIndex, !lead.search.matchesNothing else { return nil }
        var changedRows: [Int64] = []
        lead.changedRows.forEach { changedRows.append(Int64($0)) }
        let read = try lead.matchesFromSets(changedOrders: changedRows) ?? leadMatches(source, lead: lead, searchIndex: searchIndex, limit: limit)
        guard var matches = read else { return nil }
        if !matches.undecided.isEmpty {
            // The changed rows indexed on their own (`ChangedProductsIndex`), asked rank by rank: asking the store's
            // index about a row makes FTS5 merge every word a typed prefix starts again, for each row.
            try ChangedProductsIndex.index(SQLiteCatalogStore.rowList(lead.changedRows), source)
            let undecided = "[" + matches.undecided.map(String.init).joined(separator: ",") + "]"
            var ranks: [Int64: Int] = [:]
            for rank in searchIndex.fields.ranks.indices.reversed() {
                let match = SQLiteSearchIndex.matchText(search, columns: searchIndex.fields.columns(throughRank: rank))
                try source.forEachRow(ChangedProductsIndex.matchingRows, [match.databaseValue, undecided.databaseValue]) { _, statement in
                    ranks[DirectRow(statement: statement).integer(0)] = rank
                    return true
                }
            }
            matches.decide(ranks)
        }
        let page = matches.page(walk)
        let row = searchIndex.rowColumn
        let pageRowSQL = "SELECT \(columns), \(table).\(row), \(table).\(keyColumn) FROM \(table) WHERE \(row) = ?"
        var positions: [RankedWalk.Position] = []
        for match in page.matches {
            var found = false
            try source.forEachRow(pageRowSQL, [match.order.databaseValue]) { row, statement in
                if positions.count < walk.pageSize { try append(&rows, row, statement) }
                positions.append(.init(rank: match.rank, order: match.order, key: DirectRow(statement: statement).value(RankedColumn.key)))
                found = true
                return false
            }
            guard found else { throw UnreadableStoredValue(column: "\(searchIndex.table).rowid", value: "\(match.order), a match of no row") }
        }
        if walk.readsBackwards { rows.reverse() }
        let (next, previous) = walk.cursors(positions, hasRowsBehind: page.hasRowsBehind)
        return (next, previous, matches.count)
    }

    /// The matches of `lead` read from FTS5, one rank's columns at a time, each tested by its other words' sets; nil
    /// past `limit` entries, as the sets' vocabulary counts them or as they are read.
    private func leadMatches(_ source: some SQLiteReading, lead: SearchLead, searchIndex: SQLiteSearchIndex, limit: Int) throws -> RankedMatches? {
        // FTS5 merges every word a prefix starts before it gives the first match: 36 ms for one of 59,000 at a million.
        guard lead.mayHoldAtMost(limit) else { return nil }
        let matchesSQL = "SELECT \(searchIndex.indexColumn) FROM \(searchIndex.table) WHERE \(searchIndex.table) MATCH ? LIMIT ?"
        var ordersByRank: [[Int64]] = []
        var entries = 0
        for columns in searchIndex.fields.ranks {
            var orders: [Int64] = []
            let match = SQLiteSearchIndex.matchText(lead.search, columns: columns)
            try source.forEachRow(matchesSQL, [match.databaseValue, (limit + 1 - entries).databaseValue]) { _, statement in
                orders.append(DirectRow(statement: statement).integer(0))
                return true
            }
            entries += orders.count
            guard entries <= limit else { return nil }
            ordersByRank.append(orders)
        }
        return RankedMatches(ordersByRank: ordersByRank, others: lead.others())
    }

    /// Reads one page as an array of the rows `decode` makes.
    func page<Row: Sendable>(
        _ db: Database, request: PageRequest, filters: SQLiteConditions, search: SearchQuery?, decode: (GRDB.Row) throws -> Row
    ) throws -> (rows: [Row], next: String?, previous: String?, read: SearchRead?) {
        var rows: [Row] = []
        rows.reserveCapacity(request.pageSize)
        let (next, previous, read, _) = try page(db, request: request, filters: filters, search: search, into: &rows) { rows, row, _ in
            rows.append(try decode(row))
        }
        return (rows, next, previous, read)
    }

    /// The conditions that select the rows `filters` and `search` do.
    func selecting(_ filters: SQLiteConditions, _ search: SearchQuery?) -> SQLiteConditions {
        guard let searchIndex else { return filters }
        var selected = filters
        selected.addSearch(search, searchIndex)
        return selected
    }
}
