/// Which words get a set in `FrequentTerms`.
public struct FrequentTermPolicy: Sendable {
    /// The least share of the products a word is held by to get a set. Below it the engines count a word's matches
    /// in a few milliseconds, even at a million products.
    public var minimumShare = 0.05
    /// The most words that get a set: each holds a bit per product, 125 KB at a million. Prefixes of them get at most
    /// four times as many (`FrequentTerms.Builder.prefixesToSpellOut`).
    public var maximumTerms = 64

    public init() {}

    /// Whether a word `matches` of `rows` products hold gets a set.
    public func keeps(_ matches: Int, of rows: Int) -> Bool {
        matches > 0 && Double(matches) >= minimumShare * Double(rows)
    }
}
