/// The words the rows a change touched since a base hold at the snapshot it is brought forward to
/// (`FrequentTerms.advanced`), as the engine's own tokenizer made them: each word once, with the rows that hold it.
/// Bringing a base forward looks each word up (its set, the prefixes it is in, the vocabulary) once, however many of
/// the rows hold it: an import that changed 20,000 rows holds a few of their words each many times over.
public struct ChangedWords: Sendable {
    public struct Holders: Sendable {
        public let word: String
        /// The rows that hold the word, each once.
        public fileprivate(set) var rows: [Int64]
    }

    public private(set) var words: [Holders] = []

    public init() {}

    /// The words of each row of `rows`, each word of a row once.
    public init(byRow rows: [(row: Int64, words: [String])]) {
        var places: [String: Int] = [:]
        for (row, words) in rows {
            for word in words {
                if let place = places[word] {
                    self.words[place].rows.append(row)
                } else {
                    places[word] = self.words.count
                    self.words.append(Holders(word: word, rows: [row]))
                }
            }
        }
    }

    /// Adds `word`, held by `rows`, a word not added before.
    public mutating func add(_ word: String, rows: [Int64]) {
        words.append(Holders(word: word, rows: rows))
    }
}
