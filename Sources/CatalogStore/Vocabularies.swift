/// The base's vocabulary and the words written since, looked up as one.
struct Vocabularies {
    let base: Vocabulary
    let written: Vocabulary?

    init(base: Vocabulary, written: [String]) {
        self.base = base
        let sorted = Set(written).subtracting([""]).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        self.written = sorted.isEmpty ? nil : Vocabulary(words: sorted, rows: sorted.map { _ in 1 }, spelledOutRows: 0)
    }

    func holds(_ word: String) -> Bool { base.holds(word) || written?.holds(word) == true }

    func holdsWord(startingWith prefix: String) -> Bool {
        base.holdsWord(startingWith: prefix) || written?.holdsWord(startingWith: prefix) == true
    }

    /// `Vocabulary.near` in both, a word or start found in both once, with the weight of either.
    func near(_ typed: [UInt8], maximumEdits: Int, asPrefix: Bool, visitLimit: Int) -> [Vocabulary.Near] {
        var found = base.near(typed, maximumEdits: maximumEdits, asPrefix: asPrefix, visitLimit: visitLimit).found
        guard let written else { return found }
        let known = Set(found.map(\.text))
        found += written.near(typed, maximumEdits: maximumEdits, asPrefix: asPrefix, visitLimit: visitLimit).found.filter { !known.contains($0.text) }
        return found
    }
}
