/// The words of a search index at one version, in the order of their bytes, with how many rows hold each.
struct Vocabulary: Sendable {
    /// The most words a prefix is spelled out as: each is a term the engine steps through.
    static let maximumWords = 256

    private(set) var words: [String]
    private(set) var rows: [Int]
    let spelledOutRows: Int
    /// The words that have a set, whose rows count for nothing against `spelledOutRows`.
    var sets: Set<String> = []

    /// The words that start with `prefix`, when they are at most `maximumWords` and those without a set are held by
    /// at most `spelledOutRows` rows; nil otherwise.
    func words(startingWith prefix: String) -> [String]? {
        let start = firstIndex { !$0.utf8.lexicographicallyPrecedes(prefix.utf8) }
        var end = start
        var others = 0
        while end < words.count, words[end].utf8.starts(with: prefix.utf8) {
            if !sets.contains(words[end]) { others += rows[end] }
            end += 1
            guard end - start <= Self.maximumWords, others <= spelledOutRows else { return nil }
        }
        return end > start ? Array(words[start..<end]) : nil
    }

    init(words: [String], rows: [Int], spelledOutRows: Int) {
        self.words = words
        self.rows = rows
        self.spelledOutRows = spelledOutRows
    }

    /// Adds words it does not hold, each with how many rows hold it: merged in, the words already in order.
    mutating func add(_ written: [String: Int]) {
        guard !written.isEmpty else { return }
        let added = written.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var (mergedWords, mergedRows) = ([String](), [Int]())
        mergedWords.reserveCapacity(words.count + added.count)
        mergedRows.reserveCapacity(words.count + added.count)
        var (old, new) = (0, 0)
        while old < words.count || new < added.count {
            if new == added.count || (old < words.count && words[old].utf8.lexicographicallyPrecedes(added[new].utf8)) {
                mergedWords.append(words[old])
                mergedRows.append(rows[old])
                old += 1
            } else {
                mergedWords.append(added[new])
                mergedRows.append(written[added[new]] ?? 0)
                new += 1
            }
        }
        (words, rows) = (mergedWords, mergedRows)
    }

    func holds(_ word: String) -> Bool {
        let index = firstIndex { !$0.utf8.lexicographicallyPrecedes(word.utf8) }
        return index < words.count && words[index] == word
    }

    /// How many entries the words that start with `prefix` have: the rows holding each, added up, until the sum
    /// passes `limit` (the words after are not counted).
    func entries(startingWith prefix: String, upTo limit: Int) -> Int {
        var index = firstIndex { !$0.utf8.lexicographicallyPrecedes(prefix.utf8) }
        var entries = 0
        while index < words.count, entries <= limit, words[index].utf8.starts(with: prefix.utf8) {
            entries += rows[index]
            index += 1
        }
        return entries
    }

    /// How many rows hold `word`; nil when the vocabulary does not hold it.
    func rows(holding word: String) -> Int? {
        let index = firstIndex { !$0.utf8.lexicographicallyPrecedes(word.utf8) }
        return index < words.count && words[index] == word ? rows[index] : nil
    }

    func holdsWord(startingWith prefix: String) -> Bool {
        let index = firstIndex { !$0.utf8.lexicographicallyPrecedes(prefix.utf8) }
        return index < words.count && words[index].utf8.starts(with: prefix.utf8)
    }

    /// The first index whose word `isAtOrAfter` holds (a binary search: the words are in order).
    private func firstIndex(_ isAtOrAfter: (String) -> Bool) -> Int {
        var (low, high) = (0, words.count)
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(words[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
