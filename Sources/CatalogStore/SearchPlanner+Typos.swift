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

    /// A word or typed prefix of a search as a correction reads it: its key (`FrequentTerms.term`), whether it is a
    /// typed prefix, whether the vocabulary holds it (a word starts with the prefix; never, without a vocabulary), and
    /// the edits it may be corrected by (a prefix one at most). Nil for a part that is never corrected.
    private struct Typed {
        /// The word as typed.
        let text: String
        let term: String
        let isPrefix: Bool
        let held: Bool
        let edits: Int

        init?(_ part: SearchQuery.Part, in vocabulary: Vocabularies?) {
            switch part {
            case .word(let word): (text, isPrefix) = (word, false)
            case .prefix(let prefix): (text, isPrefix) = (prefix, true)
            case .phrase, .anyWord, .anyPrefix: return nil
            }
            guard let term = FrequentTerms.term(text) else { return nil }
            self.term = term
            let asPrefix = isPrefix
            held = vocabulary.map { asPrefix ? $0.holdsWord(startingWith: term) : $0.holds(term) } ?? false
            let allowed = SearchPlanner.maximumEdits(Array(term.utf8))
            edits = isPrefix ? min(allowed, 1) : allowed
        }
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
        let typed = search.parts.map { Typed($0, in: vocabulary) }
        // A part not held that cannot be corrected leaves nothing to search: no walk for the others.
        guard !typed.contains(where: { $0.map { !$0.held && $0.edits == 0 } ?? false }) else { return nil }
        var parts: [SearchQuery.Part] = []
        var corrections: [SearchCorrection] = []
        for (part, typed) in zip(search.parts, typed) {
            guard let typed, !typed.held else {
                parts.append(part)
                continue
            }
            let near = nearest(typed, in: vocabulary)
            guard !near.isEmpty else { return nil }
            switch (typed.isPrefix, near.count) {
            case (false, 1): parts.append(.word(near[0]))
            case (false, _): parts.append(.anyWord(near))
            case (true, 1): parts.append(.prefix(near[0]))
            case (true, _): parts.append(.anyPrefix(near))
            }
            corrections.append(SearchCorrection(typed: typed.text, searched: near))
        }
        return corrections.isEmpty ? nil : Correction(search: SearchQuery(parts: parts), corrections: corrections)
    }

    /// Whether some word of `search`, or its typed prefix, has as many letters as a correction needs, whatever the
    /// vocabulary holds: a search without one is never corrected.
    public static func mayBeCorrected(_ search: SearchQuery) -> Bool {
        search.parts.contains { part in Typed(part, in: nil).map { $0.edits > 0 } ?? false }
    }

    /// Whether `corrected` may correct `search`: a word of it that the vocabulary of `terms` does not hold, or its typed
    /// prefix that no word starts with, has as many letters as a correction needs. Looks words up, never near.
    public static func mayCorrect(_ search: SearchQuery, in terms: FrequentTerms) -> Bool {
        guard let base = terms.vocabulary else { return false }
        let vocabulary = Vocabularies(base: base, written: [])
        return search.parts.contains { part in Typed(part, in: vocabulary).map { !$0.held && $0.edits > 0 } ?? false }
    }

    /// The words (or starts of words) nearest `typed`, at most `candidatesPerWord`: those one edit away, or when there
    /// are none and it may be two away, those two away. Each walk allows only the edits it looks for, so that one cut
    /// short by `visitLimit` never passes over a nearer word for a farther one.
    private static func nearest(_ typed: Typed, in vocabulary: Vocabularies) -> [String] {
        guard typed.edits > 0 else { return [] }
        let word = Array(typed.term.utf8)
        for distance in 1...typed.edits {
            let found = vocabulary.near(word, maximumEdits: distance, asPrefix: typed.isPrefix, visitLimit: visitLimit)
                .filter { FrequentTerms.term($0.text) == $0.text }
            if let fewest = found.map(\.edits).min() {
                return found.filter { $0.edits == fewest }.sorted { ($0.weight, $1.text) > ($1.weight, $0.text) }.prefix(candidatesPerWord)
                    .map(\.text)
            }
        }
        return []
    }
}
