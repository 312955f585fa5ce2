import CatalogStore
import GRDB

/// A resource's FTS5 table, and how a search is asked of it.
///
/// The tables are kept by triggers on the rows (`Schema`), in the transaction that writes them, whichever statement
/// does: an upsert that leaves a row as it was fires none, so an unchanged re-import writes nothing to an index.
struct SearchIndex {
    let table: String
    let fields: SearchFields
    /// The listed table's column that names a row in the index, and the index's column that holds it.
    let rowColumn: String
    let indexColumn: String

    static let products = SearchIndex(table: "product_search", fields: .products, rowColumn: "rowid", indexColumn: "rowid")
    static let films = SearchIndex(table: "film_search", fields: .films, rowColumn: "rowid", indexColumn: "rowid")
    /// Categories have no rowid: their index holds the name itself.
    static let categories = SearchIndex(table: "category_search", fields: .categories, rowColumn: "name", indexColumn: "name")

    /// The FTS5 query of `query` in `columns`, every searched column when nil: each part quoted, so that nothing a
    /// user typed is read as an operator (the parts hold letters and digits only).
    static func matchText(_ query: SearchQuery, columns: [String]? = nil) -> String {
        let terms = query.parts.map { part in
            switch part {
            case .word(let word): "\"\(word)\""
            case .prefix(let word): "\"\(word)\" *"
            case .phrase(let words): "\"\(words.joined(separator: " "))\""
            }
        }
        let all = terms.joined(separator: " AND ")
        guard let columns else { return all }
        return "{\(columns.joined(separator: " "))} : (\(all))"
    }

    /// The condition that selects the listed rows matching `query` in `columns`, with its one argument.
    func condition(_ query: SearchQuery, columns: [String]? = nil) -> (sql: String, argument: DatabaseValue) {
        ("\(rowColumn) IN (SELECT \(indexColumn) FROM \(table) WHERE \(table) MATCH ?)", Self.matchText(query, columns: columns).databaseValue)
    }

    /// A row's rank for `query`, 0 for the best: the first group of `fields.ranks` whose columns hold a match.
    func rank(_ query: SearchQuery) -> (sql: String, arguments: [DatabaseValue]) {
        let better = fields.ranks.indices.dropLast()
        // A constant alone in ORDER BY would name a column of the result.
        guard !better.isEmpty, !query.matchesNothing else { return ("CAST(0 AS INTEGER)", []) }
        let tests = better.map { condition(query, columns: fields.columns(throughRank: $0)) }
        let cases = zip(better, tests).map { rank, test in "WHEN \(test.sql) THEN \(rank)" }
        return ("CASE \(cases.joined(separator: " ")) ELSE \(fields.ranks.count - 1) END", tests.map(\.argument))
    }

    /// How many rows match `query`, read from the index alone.
    func count(_ query: SearchQuery, _ source: some SQLiteReading) throws -> Int {
        guard !query.matchesNothing else { return 0 }
        return Int(try source.integer("SELECT COUNT(*) FROM \(table) WHERE \(table) MATCH ?", [Self.matchText(query).databaseValue]) ?? 0)
    }
}
