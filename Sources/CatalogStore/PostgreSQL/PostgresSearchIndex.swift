import CatalogStore

/// A resource's `search_vector` column, and how a search is asked of it.
///
/// The column is generated from the row's text (`PostgresSchema`), so that it holds in every transaction that
/// writes a row, whichever statement does; a GIN index answers matches. Each searched column gets a weight, A to
/// D in rank order, so that one vector tells in which column a word is: a rank is a match restricted to weights.
struct PostgresSearchIndex {
    let fields: SearchFields

    static let products = PostgresSearchIndex(fields: .products)
    static let films = PostgresSearchIndex(fields: .films)
    static let categories = PostgresSearchIndex(fields: .categories)

    private static let weightLetters = Array("ABCD")

    /// The weight letter of each searched column.
    func weight(_ column: String) -> Character {
        Self.weightLetters[fields.columns.firstIndex(of: column) ?? 0]
    }

    /// The generated column's expression: each column's words, folded as `catalog_search_words` does, weighted.
    var vectorExpression: String {
        fields.columns.map { column in
            "setweight(to_tsvector('simple'::regconfig, catalog_search_words(\(column))), '\(weight(column))')"
        }.joined(separator: " || ")
    }

    /// The `tsquery` text of `query` in `columns`, every searched column when nil: each part a lexeme of letters
    /// and digits, so that nothing a user typed is read as an operator. A phrase is matched within one column.
    func tsquery(_ query: SearchQuery, columns: [String]? = nil) -> String {
        let letters = (columns ?? fields.columns).map { weight($0) }
        let restriction = columns == nil ? "" : String(letters)
        return query.parts.map { part in
            switch part {
            case .word(let word): restriction.isEmpty ? word : "\(word):\(restriction)"
            case .prefix(let word): "\(word):*\(restriction)"
            case .phrase(let words):
                "(" + letters.map { letter in "(" + words.map { "\($0):\(letter)" }.joined(separator: " <-> ") + ")" }.joined(separator: " | ") + ")"
            }
        }.joined(separator: " & ")
    }

    /// The condition that selects the rows matching `query` in `columns`, its text a parameter of `conditions`.
    func condition(_ query: SearchQuery, columns: [String]? = nil, _ conditions: inout PostgresConditions) -> String {
        guard !query.matchesNothing else { return "false" }
        return "search_vector @@ to_tsquery('simple'::regconfig, catalog_search_fold(\(conditions.parameter(tsquery(query, columns: columns)))))"
    }

    /// A row's rank for `query`, 0 for the best: the first group of `fields.ranks` whose columns hold a match.
    func rank(_ query: SearchQuery, _ conditions: inout PostgresConditions) -> String {
        let better = fields.ranks.indices.dropLast()
        // A constant alone in ORDER BY would name a column of the result.
        guard !better.isEmpty, !query.matchesNothing else { return "CAST(0 AS bigint)" }
        let cases = better.map { rank in
            "WHEN \(condition(query, columns: fields.columns(throughRank: rank), &conditions)) THEN \(rank)"
        }
        return "CASE \(cases.joined(separator: " ")) ELSE \(fields.ranks.count - 1) END"
    }
}
