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

    /// The statement that builds the index again from the rows it indexes (FTS5's `rebuild` command).
    var rebuildSQL: String { "INSERT INTO \(table) (\(table)) VALUES ('rebuild')" }

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

    /// The statement that reads the rows of `listed` along one step of a ranked walk, at most a number of them
    /// (the last parameter), those `filters` select: the index gives its matches in the order of their row numbers,
    /// from where the step starts, and each is looked up by its row number until enough are read. Each row has
    /// the listed `columns`, then its row number and its `keyColumn`.
    func stepSQL(_ step: RankedWalk.Step, listed: String, columns: String, keyColumn: String, filters: SQLiteConditions) -> String {
        let direction = step.ascending ? "ASC" : "DESC"
        let beyond = step.beyond == nil ? "" : "AND rowid \(step.ascending ? ">" : "<") ?"
        let conditions = filters.clauses.isEmpty ? "" : "WHERE " + filters.clauses.joined(separator: " AND ")
        return """
            SELECT \(columns), matched.match_rowid, \(listed).\(keyColumn) FROM (
                SELECT rowid AS match_rowid, \(indexColumn) AS match_key FROM \(table) WHERE \(table) MATCH ? \(beyond) ORDER BY rowid \(direction)
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
