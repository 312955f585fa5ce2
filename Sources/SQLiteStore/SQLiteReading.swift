import GRDB
import GRDBSQLite

/// Where the statements of a read run: a GRDB connection, on its own queue, or a `DirectReader`, on the calling
/// thread. Reads written against this run on either; `Row` is what each gives besides the statement (GRDB's
/// row, for decoding by column name).
protocol SQLiteReading {
    associatedtype Row
    /// Runs `sql` and hands each row to `body`, with the statement on that row, until `body` returns false.
    func forEachRow(_ sql: String, _ arguments: [DatabaseValue], _ body: (Row, SQLiteStatement) throws -> Bool) throws
}

extension SQLiteReading {
    /// Each row of `sql` as `read` makes it from a `DirectRow`, in order.
    func rows<Row>(_ sql: String, _ arguments: [DatabaseValue], _ read: (DirectRow) throws -> Row) throws -> [Row] {
        var rows: [Row] = []
        try forEachRow(sql, arguments) { _, statement in
            rows.append(try read(DirectRow(statement: statement)))
            return true
        }
        return rows
    }

    /// The first column of the first row, when there is one and it is not NULL.
    func integer(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Int64? {
        var value: Int64?
        try forEachRow(sql, arguments) { _, statement in
            let row = DirectRow(statement: statement)
            if !row.isNull(0) { value = row.integer(0) }
            return false
        }
        return value
    }
}

extension Database: SQLiteReading {
    func forEachRow(_ sql: String, _ arguments: [DatabaseValue], _ body: (GRDB.Row, SQLiteStatement) throws -> Bool) throws {
        let statement = try cachedStatement(sql: sql)
        let rows = try GRDB.Row.fetchCursor(statement, arguments: StatementArguments(arguments))
        while let row = try rows.next() {
            guard try body(row, statement.sqliteStatement) else { break }
        }
    }
}
