extension Vocabulary {
    /// A word of the vocabulary, or the start of some, near a typed word.
    struct Near: Sendable, Equatable {
        let text: String
        /// Letters inserted, deleted or replaced, and neighbours swapped, from the typed word (Damerau, each letter
        /// edited once at most).
        let edits: Int
        /// How many rows hold the word; for a start of words, how many words start with it.
        let weight: Int
    }

    /// The words within `maximumEdits` of `typed` (`asPrefix` false), or the shortest starts of words within
    /// `maximumEdits` of it (`asPrefix` true, for a word still being typed), with how many nodes of the words' implicit
    /// trie were visited. The words are in byte order, so the words that start alike are neighbours: the walk descends
    /// through them as through a trie, keeping one row of the edit distance per letter, and leaves a branch once no
    /// cell of its row is within `maximumEdits`. It stops after `visitLimit` nodes, with what it found by then.
    func near(_ typed: [UInt8], maximumEdits: Int, asPrefix: Bool, visitLimit: Int) -> (found: [Near], visited: Int) {
        var walk = NearWalk(words: words, rows: rows, typed: typed, maximumEdits: maximumEdits, asPrefix: asPrefix, visitLimit: visitLimit)
        let first = Array(0...typed.count)
        walk.descend(prefix: [], range: 0..<words.count, row: first, previousRow: nil)
        return (walk.found, walk.visited)
    }
}
