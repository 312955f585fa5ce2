import CatalogStore
import PostgresNIO

/// A resource's `search_vector` column, and how a search is asked of it.
///
/// The column is computed from the row's text in every transaction that writes a row, whichever statement does: films'
/// and categories' generated (`PostgresSchema`), products' written by their writer (`PostgresProductVector`) or by a
/// trigger, as the same expression; a GIN index answers matches. Each searched column gets a weight, A to
/// D in rank order, so that one vector tells in which column a word is: a rank is a match restricted to weights.
struct PostgresSearchIndex {
    let fields: SearchFields
    /// The column that numbers the rows in the order they were first stored, indexed: a rank's matches are read in
    /// its order (`RankedWalk`). Films are numbered by their key.
    let orderColumn: String
    /// The table of each row's words as runs (`PostgresSchema.wordRuns`): for each `word` and the best `rank` a row
    /// holds it in, the rows' orders in runs of at most `wordRunLength`, ascending, one row per run (`orders`, from
    /// `first_order`), keyed by the word, the rank and the run's first order. The matches of one word or one typed
    /// prefix, and their ranks, are read from it alone, where the search index would have each row read to tell its
    /// rank, even for a selective word. Products only: films and categories are few.
    var wordRunsTable: String?
    /// How many products hold each word of `wordRunsTable` (`PostgresSchema.productWordCounts`): `word` and
    /// `products`, keyed by the word. A whole word's count is one row of it, where counting its entries takes as long
    /// as it has matches.
    var wordCountsTable: String?

    static let products = PostgresSearchIndex(
        fields: .products, orderColumn: "row_order", wordRunsTable: "product_word_runs", wordCountsTable: "product_word_counts")

    /// The most orders a run of `wordRunsTable` holds (`PostgresSchema.wordRuns` writes runs of this length).
    static let wordRunLength = 200
    static let films = PostgresSearchIndex(fields: .films, orderColumn: "episode_id")
    static let categories = PostgresSearchIndex(fields: .categories, orderColumn: "row_order")

    private static let weightLetters = Array("ABCD")

    /// The weight letter of each searched column.
    func weight(_ column: String) -> Character {
        Self.weightLetters[fields.columns.firstIndex(of: column) ?? 0]
    }

    /// The column's expression: each column's words, folded as `catalog_search_words` does, weighted.
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
            case .anyPrefix(let starts): "(" + starts.map { "\($0):*\(restriction)" }.joined(separator: " | ") + ")"
            case .phrase(let words):
                "(" + letters.map { letter in "(" + words.map { "\($0):\(letter)" }.joined(separator: " <-> ") + ")" }.joined(separator: " | ") + ")"
            }
        }.joined(separator: " & ")
    }

    /// The rank of a row that matches `query`: the first rank whose columns hold the match; its texts parameters of
    /// `conditions`.
    func rankExpression(_ query: SearchQuery, _ conditions: inout PostgresConditions) -> String {
        ranked { rank in matches(tsquery(query, columns: fields.columns(throughRank: rank)), &conditions) }
    }

    /// The statement that ranks the rows of `table` whose orders are `orders`, each that matches `query`
    /// (`match_order`, `match_rank`): a search's rows that a change since the frequent words' sets touched
    /// (`PostgresListing.leadPage`).
    func ranksStatement(_ query: SearchQuery, orders: [Int64], table: String) -> (sql: String, binds: PostgresBindings) {
        var statement = PostgresConditions()
        let condition = condition(query, &statement)
        let rank = rankExpression(query, &statement)
        // The rows first, by their order, and the search on them alone: beside the search's own condition, the planner
        // may prefer the search index, which reads every match of a word most rows hold.
        let sql = """
            WITH ranked AS MATERIALIZED (SELECT * FROM \(table) WHERE \(orderColumn) = ANY(\(statement.parameter(orders))))
            SELECT \(orderColumn) AS match_order, \(rank) AS match_rank FROM ranked WHERE \(condition)
            """
        return (sql, statement.binds)
    }

    /// The rank of a word whose positions in a row's vector have the weight letters `weights` (a `text[]`, as
    /// `unnest(tsvector)` gives them): the first rank whose columns hold it, as `rankExpression` tells of a row.
    func wordRankExpression(_ weights: String) -> String {
        ranked { rank in "\(weights) && ARRAY[\(fields.columns(throughRank: rank).map { "'\(weight($0))'" }.joined(separator: ", "))]" }
    }

    /// `CASE WHEN holds(0) THEN 0 WHEN holds(1) THEN 1 … ELSE last END`: the first rank whose condition holds.
    private func ranked(_ holds: (Int) -> String) -> String {
        let cases = (0..<(fields.ranks.count - 1)).map { rank in "WHEN \(holds(rank)) THEN \(rank)" }
        return cases.isEmpty ? "0" : "CASE \(cases.joined(separator: " ")) ELSE \(fields.ranks.count - 1) END"
    }

    /// The entries of `wordRunsTable` that the rows of `rows` (a table or a subquery's name, with `search_vector` and
    /// the order column) make: each word of each row, with its rank and the row's order.
    func wordEntries(of rows: String) -> String {
        "SELECT word.lexeme, \(wordRankExpression("word.weights")), \(rows).\(orderColumn) FROM \(rows), unnest(\(rows).search_vector) AS word"
    }

    /// The entries of `wordRunsTable` as rows: `word`, `rank`, `first_order` (their run's) and `product_order`, of the
    /// runs `condition` selects (on `word`, `rank` and `first_order`) among `runs`, the table itself or a subquery of it.
    func runEntries(_ condition: String, runs: String) -> String {
        """
        SELECT run.word, run.rank, run.first_order, entry.product_order FROM \(runs) AS run, unnest(run.orders) AS entry (product_order)
        WHERE \(condition)
        """
    }

    /// How `wordRunsTable` answers `query` when it is one word or one typed prefix, its text a parameter of
    /// `conditions`; nil for any other search. `term` is a statement of one row that folds the text once (a condition
    /// that folds it itself is evaluated again by each scan that uses it): its `word` is the word or prefix as the
    /// table holds it, and its `one_lexeme` whether the text folds to one lexeme (a word the text search parser splits
    /// has no entry of its own, and the caller reads the search index instead). `entries` selects the entries of the
    /// word or prefix, reading `word` from a CTE named `term`.
    func wordCondition(_ query: SearchQuery, _ conditions: inout PostgresConditions) -> (term: String, entries: String)? {
        guard wordRunsTable != nil, let part = query.onlyPart else { return nil }
        let text: String
        let entries: String
        switch part {
        case .word(let word):
            text = word
            entries = "word = (SELECT word FROM term)"
        case .prefix(let prefix):
            text = "\(prefix):*"
            // A range of the key, in byte order (the column is `COLLATE "C"`), whatever the plan knows of the prefix:
            // no word holds the last code point, which is no letter.
            entries = "word >= (SELECT word FROM term) AND word < (SELECT word FROM term) || chr(1114111)"
        case .anyWord, .anyPrefix, .phrase:
            return nil
        }
        // A lexeme of letters and digits prints as itself in quotes, a prefix's followed by `:*`.
        let term = """
            SELECT split_part(query::text, '''', 2) AS word, numnode(query) = 1 AS one_lexeme
            FROM to_tsquery('simple'::regconfig, catalog_search_fold(\(conditions.parameter(text)))) AS query
            """
        return (term, entries)
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
