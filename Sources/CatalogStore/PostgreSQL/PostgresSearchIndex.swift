import CatalogStore

/// A resource's `search_vector` column, and how a search is asked of it.
///
/// The column is generated from the row's text (`PostgresSchema`), so that it holds in every transaction that
/// writes a row, whichever statement does; a GIN index answers matches. Each searched column gets a weight, A to
/// D in rank order, so that one vector tells in which column a word is: a rank is a match restricted to weights.
struct PostgresSearchIndex {
    let fields: SearchFields
    /// The column that numbers the rows in the order they were first stored, indexed: a rank's matches are read in
    /// its order (`RankedWalk`). Films are numbered by their key.
    let orderColumn: String

    static let products = PostgresSearchIndex(fields: .products, orderColumn: "row_order")
    static let films = PostgresSearchIndex(fields: .films, orderColumn: "episode_id")
    static let categories = PostgresSearchIndex(fields: .categories, orderColumn: "row_order")

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
            case .anyWord(let words): "(" + words.map { restriction.isEmpty ? $0 : "\($0):\(restriction)" }.joined(separator: " | ") + ")"
            case .phrase(let words):
                "(" + letters.map { letter in "(" + words.map { "\($0):\(letter)" }.joined(separator: " <-> ") + ")" }.joined(separator: " | ") + ")"
            }
        }.joined(separator: " & ")
    }

    /// The rank of a row that matches `query`: the first rank whose columns hold the match; its texts parameters of
    /// `conditions`.
    func rankExpression(_ query: SearchQuery, _ conditions: inout PostgresConditions) -> String {
        let cases = (0..<(fields.ranks.count - 1)).map { rank in
            "WHEN \(matches(tsquery(query, columns: fields.columns(throughRank: rank)), &conditions)) THEN \(rank)"
        }
        return cases.isEmpty ? "0" : "CASE \(cases.joined(separator: " ")) ELSE \(fields.ranks.count - 1) END"
    }

    /// Whether the row's vector matches the `tsquery` text `text`, a parameter of `conditions`.
    private func matches(_ text: String, _ conditions: inout PostgresConditions) -> String {
        "search_vector @@ to_tsquery('simple'::regconfig, catalog_search_fold(\(conditions.parameter(text))))"
    }

    /// The condition that selects the matches of `query` in `rank` and no better one, or in any column when nil; its
    /// text a parameter of `conditions`.
    func condition(_ query: SearchQuery, rank: Int? = nil, _ conditions: inout PostgresConditions) -> String {
        guard !query.matchesNothing else { return "false" }
        var text = tsquery(query, columns: rank.map { fields.columns(throughRank: $0) })
        if let rank, rank > 0 { text = "(\(text)) & !(\(tsquery(query, columns: fields.columns(throughRank: rank - 1))))" }
        return matches(text, &conditions)
    }
}
