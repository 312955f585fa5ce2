/// The words the rows a change touched since a base hold at the snapshot it is brought forward to
/// (`FrequentTerms.advanced`), as the engine's own tokenizer made them: each word once, with the rows that hold it and
/// the best rank each holds it in. Bringing a base forward looks each word up (its set, the prefixes it is in, the
/// vocabulary) once, however many of the rows hold it: an import that changed 20,000 rows holds a few of their words
/// each many times over.
public struct ChangedWords: Sendable {
    public struct Holders: Sendable {
        public let word: String
        /// The rows that hold the word, each once.
        public fileprivate(set) var rows: [Int64]
        /// The first rank (`SearchFields.ranks`) whose columns hold the word, for each of `rows`.
        public fileprivate(set) var ranks: [Int]
    }

    public private(set) var words: [Holders] = []

    public init() {}

    /// The words of each row of `rows`, each word of a row once, with the best rank the row holds it in.
    public init(byRow rows: [(row: Int64, words: [(word: String, rank: Int)])]) {
        var places: [String: Int] = [:]
        for (row, words) in rows {
            for (word, rank) in words {
                if let place = places[word] {
                    self.words[place].rows.append(row)
                    self.words[place].ranks.append(rank)
                } else {
                    places[word] = self.words.count
                    self.words.append(Holders(word: word, rows: [row], ranks: [rank]))
                }
            }
        }
    }

    /// Adds `word`, held by `rows` in `ranks` (one each), a word not added before.
    public mutating func add(_ word: String, rows: [Int64], ranks: [Int]) {
        words.append(Holders(word: word, rows: rows, ranks: ranks))
    }
}
