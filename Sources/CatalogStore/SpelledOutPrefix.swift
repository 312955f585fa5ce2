/// A prefix spelled out as the words of the search index that start with it (`FrequentTerms.expanded`), and those of
/// them without a set.
public struct SpelledOutPrefix: Sendable {
    public let words: [String]
    public let others: [String]
}
