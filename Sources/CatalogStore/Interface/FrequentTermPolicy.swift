/// Which words get a set in `FrequentTerms`, and how they are found.
public struct FrequentTermPolicy: Sendable {
    /// The least share of the products a word is held by to get a set. Below it the engines count a word's matches
    /// in a few milliseconds: 5 % of a million products, 50,000 matches, take FTS5 about 4 ms.
    public var minimumShare = 0.05
    /// How many products are read to propose words; the engine then counts each proposal's rows exactly.
    public var sampleSize = 2_000
    /// The most words that get a set: each holds a bit per product, 125 KB at a million.
    public var maximumTerms = 64

    public init() {}

    /// The words to read the rows of, most frequent first: those of the sampled `texts` (one per product, every
    /// searched field) held by at least half the minimum share of them, as sampling may find a word rarer than it is.
    public func candidates(_ texts: [String]) -> [String] {
        var holders: [String: Int] = [:]
        for text in texts {
            let words = Set(text.lowercased().split { !($0.isLetter || $0.isNumber) }.compactMap { FrequentTerms.term(String($0)) })
            for word in words { holders[word, default: 0] += 1 }
        }
        let least = max(1, Int((minimumShare / 2 * Double(texts.count)).rounded(.down)))
        return holders.filter { $0.value >= least }.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(maximumTerms * 2).map(\.key)
    }

    /// Whether a word `matches` of `rows` products hold gets a set.
    public func keeps(_ matches: Int, of rows: Int) -> Bool {
        matches > 0 && Double(matches) >= minimumShare * Double(rows)
    }
}
