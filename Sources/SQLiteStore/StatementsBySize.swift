import GRDB

/// Statements whose SQL depends on a number of rows (multi-row `VALUES`), prepared once per size.
struct StatementsBySize {
    private let sql: (_ rows: Int) -> String
    private var prepared: [Int: DirectStatement] = [:]

    init(sql: @escaping (_ rows: Int) -> String) {
        self.sql = sql
    }

    mutating func statement(_ db: Database, rows: Int) throws -> DirectStatement {
        if let statement = prepared[rows] { return statement }
        let statement = try DirectStatement(db, sql: sql(rows))
        prepared[rows] = statement
        return statement
    }
}
