extension SearchPlanner {
    /// A search with its mistyped words replaced, and what replaced each.
    public struct Correction: Sendable, Equatable {
        public let search: SearchQuery
        public let corrections: [SearchCorrection]
    }

    /// The shortest word corrected: a word of fewer letters has too many neighbours to guess from.
    public static let shortestCorrectedWord = 5
    /// From this many letters a word may be two edits away, rather than one.
    public static let twoEditWord = 9
    /// The longest word corrected: a longer one is no word people type, and costs the walk more.
    public static let longestCorrectedWord = 32
    /// The most words (or starts of words) a mistyped word is replaced by: those fewest edits away, the most held first.
    public static let candidatesPerWord = 16
    /// The most nodes of the vocabulary's trie one word's walk visits (`Vocabulary.near`): bounds the work a word of
    /// repeated letters, or one unlike any word, can cost.
    public static let visitLimit = 40_000

    /// How many edits a word may be from the word it stands for: none under `shortestCorrectedWord` letters or with a
    /// digit (a code or a size is meant as typed), one up to eight letters, two from `twoEditWord`.
    public static func maximumEdits(_ word: [UInt8]) -> Int {
        guard word.count >= shortestCorrectedWord, word.count <= longestCorrectedWord, word.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) else {
            return 0
        }
        return word.count >= twoEditWord ? 2 : 1
    }

    /// `search` with each word the vocabulary of `terms` does not hold replaced by the words nearest it, any of them
    /// (the fewest edits found, at most `candidatesPerWord`, those most rows hold first), and a typed prefix no word
    /// starts with by the starts of words one edit from it, once it has `shortestCorrectedWord` letters. Words the
    /// vocabulary holds stay as typed. Nil when no word needs a correction, or one has none: the search as typed is
    /// then the answer. Only words of the letters a to z are corrected; `terms` read its vocabulary with its sets, and
    /// `written` are the words of the rows changed since, which count as held too.
    public static func corrected(_ search: SearchQuery, in terms: FrequentTerms, written: [String] = []) -> Correction? {
        guard let base = terms.vocabulary else { return nil }
        let vocabulary = Vocabularies(base: base, written: written)
        // A word not held that cannot be corrected leaves nothing to search: no walk for the others.
        guard !search.parts.contains(where: { cannotCorrect($0, in: vocabulary) }) else { return nil }
        var parts: [SearchQuery.Part] = []
        var corrections: [SearchCorrection] = []
        for part in search.parts {
            switch part {
            case .word(let word):
                guard let term = FrequentTerms.term(word), !vocabulary.holds(term) else {
                    parts.append(part)
                    continue
                }
                let near = nearest(Array(term.utf8), in: vocabulary, asPrefix: false)
                guard !near.isEmpty else { return nil }
                parts.append(near.count == 1 ? .word(near[0]) : .anyWord(near))
                corrections.append(SearchCorrection(typed: word, searched: near))
            case .prefix(let prefix):
                guard let term = FrequentTerms.term(prefix), !vocabulary.holdsWord(startingWith: term) else {
                    parts.append(part)
                    continue
                }
                let bytes = Array(term.utf8)
                let near = maximumEdits(bytes) == 0 ? [] : nearest(bytes, in: vocabulary, asPrefix: true, maximumEdits: 1)
                guard !near.isEmpty else { return nil }
                parts.append(near.count == 1 ? .prefix(near[0]) : .anyPrefix(near))
                corrections.append(SearchCorrection(typed: prefix, searched: near))
            case .phrase, .anyWord, .anyPrefix:
                parts.append(part)
            }
        }
        return corrections.isEmpty ? nil : Correction(search: SearchQuery(parts: parts), corrections: corrections)
    }

    /// Whether some word of `search`, or its typed prefix, has as many letters as a correction needs, whatever the
    /// vocabulary holds: a search without one is never corrected.
    public static func mayBeCorrected(_ search: SearchQuery) -> Bool {
        search.parts.contains { part in
            switch part {
            case .word(let word), .prefix(let word): FrequentTerms.term(word).map { maximumEdits(Array($0.utf8)) > 0 } ?? false
            case .phrase, .anyWord, .anyPrefix: false
            }
        }
    }

    /// Whether `corrected` may correct `search`: a word of it that the vocabulary of `terms` does not hold, or its typed
    /// prefix that no word starts with, has as many letters as a correction needs. Looks words up, never near.
    public static func mayCorrect(_ search: SearchQuery, in terms: FrequentTerms) -> Bool {
        guard let vocabulary = terms.vocabulary else { return false }
        return search.parts.contains { part in
            switch part {
            case .word(let word):
                FrequentTerms.term(word).map { !vocabulary.holds($0) && maximumEdits(Array($0.utf8)) > 0 } ?? false
            case .prefix(let prefix):
                FrequentTerms.term(prefix).map { !vocabulary.holdsWord(startingWith: $0) && maximumEdits(Array($0.utf8)) > 0 } ?? false
            case .phrase, .anyWord, .anyPrefix: false
            }
        }
    }

    /// Whether `part` is a word the vocabulary does not hold, or a typed prefix no word starts with, that is too short,
    /// too long or not of the letters a to z to be corrected.
    private static func cannotCorrect(_ part: SearchQuery.Part, in vocabulary: Vocabularies) -> Bool {
        switch part {
        case .word(let word): FrequentTerms.term(word).map { !vocabulary.holds($0) && maximumEdits(Array($0.utf8)) == 0 } ?? false
        case .prefix(let prefix):
            FrequentTerms.term(prefix).map { !vocabulary.holdsWord(startingWith: $0) && maximumEdits(Array($0.utf8)) == 0 } ?? false
        case .phrase, .anyWord, .anyPrefix: false
        }
    }

    /// The words (or starts of words) nearest `word`, at most `candidatesPerWord`: those one edit away, or when there
    /// are none and `word` may be two away, those two away. Each walk allows only the edits it looks for, so that one
    /// cut short by `visitLimit` never passes over a nearer word for a farther one.
    private static func nearest(_ word: [UInt8], in vocabulary: Vocabularies, asPrefix: Bool, maximumEdits edits: Int? = nil) -> [String] {
        let allowed = edits ?? maximumEdits(word)
        guard allowed > 0 else { return [] }
        for distance in 1...allowed {
            let found = vocabulary.near(word, maximumEdits: distance, asPrefix: asPrefix, visitLimit: visitLimit)
                .filter { FrequentTerms.term($0.text) == $0.text }
            if let fewest = found.map(\.edits).min() {
                return found.filter { $0.edits == fewest }.sorted { ($0.weight, $1.text) > ($1.weight, $0.text) }.prefix(candidatesPerWord)
                    .map(\.text)
            }
        }
        return []
    }
}
