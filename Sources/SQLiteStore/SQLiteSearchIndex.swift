import CatalogStore
import GRDB

/// A resource's FTS5 table, and how a search is asked of it.
///
/// The tables are kept by triggers on the rows (`SQLiteSchema`), in the transaction that writes them, whichever statement
/// does: an upsert that leaves a row as it was fires none, so an unchanged re-import writes nothing to an index.
struct SQLiteSearchIndex {
    let table: String
    let fields: SearchFields
    /// The listed table's column that names a row in the index, and the index's column that holds it.
    let rowColumn: String
    let indexColumn: String

    static let products = SQLiteSearchIndex(table: "product_search", fields: .products, rowColumn: "rowid", indexColumn: "rowid")
    static let films = SQLiteSearchIndex(table: "film_search", fields: .films, rowColumn: "rowid", indexColumn: "rowid")
    /// Categories have no rowid: their index holds the name itself.
    static let categories = SQLiteSearchIndex(table: "category_search", fields: .categories, rowColumn: "name", indexColumn: "name")

    /// The rank (`SearchFields.ranks`) of the column an instance of `fts5vocab` names; nil for a column no rank holds
    /// (`ChangedProductsIndex.words`).
    func rank(ofColumn name: UnsafeBufferPointer<UInt8>) -> Int? {
        fields.ranks.firstIndex { columns in columns.contains { name.elementsEqual($0.utf8) } }
    }

    /// The statement that builds the index again from the rows it indexes (FTS5's `rebuild` command).
    var rebuildSQL: String { "INSERT INTO \(table) (\(table)) VALUES ('rebuild')" }

    /// The statement that merges every segment of the index into one (FTS5's `optimize` command), which it places a level
    /// above those of the segments it merged.
    var optimizeSQL: String { "INSERT INTO \(table) (\(table)) VALUES ('optimize')" }

    /// The FTS5 query of `query` in `columns`, every searched column when nil: each part quoted, so that nothing a
    /// user typed is read as an operator (the parts hold letters and digits only).
    static func matchText(_ query: SearchQuery, columns: [String]? = nil) -> String {
        let terms = query.parts.map { part in
            switch part {
            case .word(let word): "\"\(word)\""
            case .prefix(let word): "\"\(word)\" *"
            case .phrase(let words): "\"\(words.joined(separator: " "))\""
            case .anyWord(let words): "(\(words.map { "\"\($0)\"" }.joined(separator: " OR ")))"
            case .anyPrefix(let starts): "(\(starts.map { "\"\($0)\" *" }.joined(separator: " OR ")))"
            }
        }
        let all = terms.joined(separator: " AND ")
        guard let columns else { return all }
        return "{\(columns.joined(separator: " "))} : (\(all))"
    }

    /// The condition that selects the listed rows matching `query`, with its one argument.
    func condition(_ query: SearchQuery) -> (sql: String, argument: DatabaseValue) {
        ("\(rowColumn) IN (SELECT \(indexColumn) FROM \(table) WHERE \(table) MATCH ?)", Self.matchText(query).databaseValue)
    }

    /// The FTS5 query of the matches of `query` in `rank` and no better one.
    func matchText(_ query: SearchQuery, rank: Int) -> String {
        let within = Self.matchText(query, columns: fields.columns(throughRank: rank))
        guard rank > 0 else { return within }
        return "(\(within)) NOT (\(Self.matchText(query, columns: fields.columns(throughRank: rank - 1))))"
    }

    /// The statement that reads the rows of `listed` along one step of a ranked walk of `query`, at most `limit` of
    /// them, those `filters` select: the index gives its matches in the order of their row numbers, from where the
    /// step starts, and each is looked up by its row number until enough are read; the step of `leading`'s own rank
    /// reads the leading rows alone, and every other step passes over them. Each row has the listed `columns`, then its
    /// row number and its `keyColumn`.
    func stepStatement(
        _ step: RankedWalk.Step, query: SearchQuery, leading: LeadingRows, limit: Int, listed: String, columns: String, keyColumn: String,
        filters: SQLiteConditions
    ) -> (sql: String, arguments: [DatabaseValue]) {
        let direction = step.ascending ? "ASC" : "DESC"
        let beyond = step.beyond.map { [$0.databaseValue] } ?? []
        let leadingList = leading.orders.map { _ in "?" }.joined(separator: ", ")
        let leadingValues = leading.orders.map(\.databaseValue)
        guard let fieldRank = leading.fieldRank(step.rank) else {
            let after = step.beyond == nil ? "" : "AND \(rowColumn) \(step.ascending ? ">" : "<") ?"
            let conditions = filters.clauses.isEmpty ? "" : "AND " + filters.clauses.joined(separator: " AND ")
            let sql = """
                SELECT \(columns), \(listed).\(rowColumn), \(listed).\(keyColumn) FROM \(listed)
                WHERE \(rowColumn) IN (\(leadingList)) \(after) \(conditions) ORDER BY \(rowColumn) \(direction) LIMIT ?
                """
            return (sql, leadingValues + beyond + filters.values + [limit.databaseValue])
        }
        let passing = leading.isEmpty ? "" : "AND rowid NOT IN (\(leadingList))"
        let sql = matchedRowsSQL(
            listed: listed, columns: columns, keyColumn: keyColumn, filters: filters, ascending: step.ascending,
            matchConditions: "\(step.beyond == nil ? "" : "AND rowid \(step.ascending ? ">" : "<") ?") \(passing)")
        return (sql, [matchText(query, rank: fieldRank).databaseValue] + beyond + leadingValues + filters.values + [limit.databaseValue])
    }

    /// The best match of each of `leads` (`SearchPlanner.Lead`) that `filters` select, as `LeadingRows`: the first row,
    /// in the order of row numbers, that holds the lead's word in the first rank's columns, else in the first two
    /// ranks', and so on, and matches the lead's search. Each is the first match of an index query read in order.
    func leadingRows(
        _ leads: [SearchPlanner.Lead], listed: String, keyColumn: String, filters: SQLiteConditions, _ source: some SQLiteReading
    ) throws -> LeadingRows {
        let sql = matchedRowsSQL(listed: listed, columns: "NULL", keyColumn: keyColumn, filters: filters, ascending: true, matchConditions: "")
        var orders: [Int64] = []
        for lead in leads where !lead.search.matchesNothing {
            for rank in fields.ranks.indices {
                let match = "(\(Self.matchText(lead.word, columns: fields.columns(throughRank: rank)))) AND (\(Self.matchText(lead.search)))"
                var found: Int64?
                try source.forEachRow(sql, [match.databaseValue] + filters.values + [1.databaseValue]) { _, statement in
                    found = DirectRow(statement: statement).integer(RankedColumn.order)
                    return false
                }
                if let found {
                    orders.append(found)
                    break
                }
            }
        }
        return LeadingRows(orders)
    }

    /// The statement that reads the rows of `listed` that the index matches for an FTS5 query (the first argument)
    /// and `matchConditions` on the index's rowid (their arguments next), and `filters` select (theirs next), in the
    /// order of their row numbers, at most a number of them (the last argument), with the listed `columns`, then the
    /// row number and `keyColumn`.
    private func matchedRowsSQL(
        listed: String, columns: String, keyColumn: String, filters: SQLiteConditions, ascending: Bool, matchConditions: String
    ) -> String {
        let direction = ascending ? "ASC" : "DESC"
        let conditions = filters.clauses.isEmpty ? "" : "WHERE " + filters.clauses.joined(separator: " AND ")
        return """
            SELECT \(columns), matched.match_rowid, \(listed).\(keyColumn) FROM (
                SELECT rowid AS match_rowid, \(indexColumn) AS match_key FROM \(table) WHERE \(table) MATCH ? \(matchConditions) ORDER BY rowid \(direction)
            ) AS matched JOIN \(listed) ON \(listed).\(rowColumn) = matched.match_key \(conditions)
            ORDER BY matched.match_rowid \(direction) LIMIT ?
            """
    }

    /// The statement that counts the rows of `listed` matching `query` that `filters` select: from the index alone
    /// without filters; with them, each match the index gives is looked up by its row number and checked. (Left to
    /// itself, SQLite walks a filter's index instead, a category's 80,000 entries for a word 600 rows hold.)
    func countStatement(_ query: SearchQuery, listed: String, filters: SQLiteConditions) -> (sql: String, arguments: [DatabaseValue]) {
        guard !query.matchesNothing else { return ("SELECT 0", []) }
        let match = Self.matchText(query).databaseValue
        guard !filters.clauses.isEmpty else { return ("SELECT COUNT(*) FROM \(table) WHERE \(table) MATCH ?", [match]) }
        let sql = """
            SELECT COUNT(*) FROM (SELECT \(indexColumn) AS match_key FROM \(table) WHERE \(table) MATCH ?) AS matched
            CROSS JOIN \(listed) ON \(listed).\(rowColumn) = matched.match_key \(filters.whereSQL)
            """
        return (sql, [match] + filters.values)
    }
}
