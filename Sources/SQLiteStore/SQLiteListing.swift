import CatalogModel
import CatalogStore
import CatalogStoreKit
import Foundation
import GRDB
import GRDBSQLite

/// How the list query of one resource reads its table in each ordering it accepts.
struct SQLiteListing {
    let table: String
    let columns: String
    let keyColumn: String
    let ordering: ListOrdering
    /// The SQL expression of each field whose column is named otherwise; every sorted expression is backed by
    /// an index or a small table.
    var expressions: [String: String] = [:]
    /// The index a search reads, when the resource has one.
    var searchIndex: SQLiteSearchIndex?
    /// The indexes that give the rows in each order (`pageStatement` names the one it reads), and the name SQLite
    /// gives the key's own.
    var indexes: ListIndexes?
    var keyIndex = ""

    func sortExpression(_ field: String) -> String { expressions[field] ?? field }

    /// How many rows match `conditions`, over all pages.
    func count(_ source: some SQLiteReading, _ conditions: SQLiteConditions) throws -> Int {
        Int(try source.integer("SELECT COUNT(*) FROM \(table) \(conditions.whereSQL)", conditions.values) ?? 0)
    }
}

extension SQLiteListing {
    /// The statement that reads one page of the rows `conditions` select, in `request`'s ordering from its cursor: the
    /// listed columns, then the sort value, the key and whether there are rows behind the cursor. `ListingPlanTests`
    /// asks SQLite's plan for it.
    func pageStatement(_ request: PageRequest, conditions: SQLiteConditions) throws -> (
        sql: String, arguments: [DatabaseValue], resolved: ListOrdering.Resolved
    ) {
        let resolved = try ordering.resolve(request)
        let walk = KeysetWalk(resolved)
        let (cursor, direction) = (resolved.cursor, walk.direction)
        let sortExpression = sortExpression(resolved.field)
        let position = KeysetComparison(sortExpression: sortExpression, keyColumn: keyColumn)
        var pageConditions = conditions
        if let cursor { pageConditions.add(position, walk.pageSide, cursor) }
        // Walking an index in the page's order reads as many rows as the page shows, or as many more as the filters
        // pass over; left to choose, SQLite took the filter's index and sorted all it selects (a category's products
        // by price) whenever it had no statistics to weigh them, which is always here.
        let index = indexes?.index(equalityColumns: conditions.equalities, field: resolved.field, in: ordering)
        let source = index.map { "\(table) INDEXED BY \(name($0))" } ?? table
        // A page read from a cursor has rows on the cursor's other side when some are at or behind its position (in
        // the query's direction): the page's own statement answers that in a column (SQLite runs the subquery once).
        var behind = SQLiteConditions()
        var hasRowsBehind = "0"
        if let cursor {
            behind = conditions
            behind.add(position, walk.cursorSide, cursor)
            hasRowsBehind = "EXISTS (SELECT 1 FROM \(source) \(behind.whereSQL))"
        }
        // The key twice in ORDER BY makes SQLite sort what an index on (filter, key) gives in order.
        let order = sortExpression == keyColumn ? "\(keyColumn) \(direction)" : "\(sortExpression) \(direction), \(keyColumn) \(direction)"
        let sql = """
            SELECT \(columns), \(sortExpression), \(keyColumn), \(hasRowsBehind) FROM \(source) \(pageConditions.whereSQL)
            ORDER BY \(order) LIMIT ?
            """
        return (sql, behind.values + pageConditions.values + [(request.pageSize + 1).databaseValue], resolved)
    }

    private func name(_ index: ListIndex) -> String {
        switch index {
        case .key: keyIndex
        case .named(let name): name
        }
    }

    /// Reads one page into `rows`: each row is handed to `append` while the statement is on it, so that text and
    /// integers are read straight from SQLite rather than copied into a row of `DatabaseValue`s first. Returns
    /// the cursors of the pages on either side, when there are rows there.
    func page<Source: SQLiteReading, Rows: PageRows>(
        _ source: Source, request: PageRequest, conditions: SQLiteConditions, into rows: inout Rows,
        append: (inout Rows, Source.Row, SQLiteStatement) throws -> Void
    ) throws -> (next: String?, previous: String?) {
        let (sql, arguments, resolved) = try pageStatement(request, conditions: conditions)
        let walk = KeysetWalk(resolved)
        // Cursors start from the edges of the page: its first row as read, and its last when the page is full (a
        // page that is not has nothing beyond it in the query's direction).
        var firstRead: KeysetWalk.Position?
        var lastRead: KeysetWalk.Position?
        var count = 0
        // The row after the page only tells that there is more: it is not read.
        var hasMoreInQueryDirection = false
        var hasRowsBehindCursor = false
        try source.forEachRow(sql, arguments) { row, statement in
            guard count < request.pageSize else {
                hasMoreInQueryDirection = true
                return false
            }
            let columns = DirectRow(statement: statement)
            func position() -> KeysetWalk.Position { (columns.value(KeysetColumn.sortValue), columns.value(KeysetColumn.key)) }
            if count == 0 {
                hasRowsBehindCursor = columns.integer(KeysetColumn.rowsBehind) != 0
                firstRead = position()
            }
            count += 1
            if count == request.pageSize { lastRead = position() }
            try append(&rows, row, statement)
            return true
        }
        if !walk.forward { rows.reverse() }
        return walk.cursors(
            firstRead: firstRead, lastRead: lastRead, hasMoreInQueryDirection: hasMoreInQueryDirection, hasRowsBehindCursor: hasRowsBehindCursor)
    }
}
