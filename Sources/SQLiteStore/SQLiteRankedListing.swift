import CatalogStore
import GRDB
import GRDBSQLite

extension SQLiteListing {
    /// The reads this engine has: a walk of a search's ranks along FTS5's matches, which gives them in row order, and
    /// the keyset of an ordering. FTS5 cannot tell a match's rank without a query of each rank, so there is no read of
    /// every match at once.
    static let searchPlanner = SearchPlanner(reads: [.nothing, .keyset, .walk])

    /// Reads one page of the rows `filters` and `search` select, as `searchPlanner` plans it: along the search index's
    /// ranks when the page is ordered by relevance (`RankedWalk`), `leading` rows first, by the keyset of its ordering
    /// otherwise. Returns the cursors of the pages on either side, when there are rows there, and how a search was read.
    func page<Source: SQLiteReading, Rows: PageRows>(
        _ source: Source, request: PageRequest, filters: SQLiteConditions, search: SearchQuery?, leading: LeadingRows = .none,
        into rows: inout Rows,
        append: (inout Rows, Source.Row, SQLiteStatement) throws -> Void
    ) throws -> (next: String?, previous: String?, read: SearchRead?) {
        let facts = SearchPlanner.Facts(
            search: search, ranked: try searchIndex != nil && ordering.resolveOrdering(request).field == ListOrdering.relevance,
            firstPage: request.cursor == nil, filtered: !filters.clauses.isEmpty)
        guard let search, let searchIndex, Self.searchPlanner.plan(facts).first == .walk else {
            let (next, previous) = try page(source, request: request, conditions: selecting(filters, search), into: &rows, append: append)
            return (next, previous, search == nil ? nil : .keyset)
        }
        let walk = try RankedWalk(request, ordering: ordering, ranks: leading.walkRanks(fieldRanks: searchIndex.fields.ranks.count))
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
        return (next, previous, .walk)
    }

    /// Reads one page as an array of the rows `decode` makes.
    func page<Row: Sendable>(
        _ db: Database, request: PageRequest, filters: SQLiteConditions, search: SearchQuery?, decode: (GRDB.Row) throws -> Row
    ) throws -> (rows: [Row], next: String?, previous: String?, read: SearchRead?) {
        var rows: [Row] = []
        rows.reserveCapacity(request.pageSize)
        let (next, previous, read) = try page(db, request: request, filters: filters, search: search, into: &rows) { rows, row, _ in
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
