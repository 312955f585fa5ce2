extension SearchPlanner {
    /// The most words a corrected search's first page leads with one match each (`leads(of:)`): as many as a word may
    /// be corrected to.
    public static let maximumLeads = candidatesPerWord

    /// A word a mistyped word may stand for, whose best match a ranked page of the corrected search shows before the
    /// others (`LeadingRows`): whichever of the words was meant, the first page then holds a product with it, where
    /// the matches of the word most rows hold would fill it.
    public struct Lead: Sendable, Equatable {
        /// The word, or the start of a word, alone: its best match is the first row that holds it in the search's
        /// best fields (a name before a brand before a description), in the order the rows were first stored.
        public let word: SearchQuery
        /// The corrected search with this word in place of the words its mistyped word stands for: the lead is one of
        /// its matches, among the rows the list's filters select.
        public let search: SearchQuery
    }

    /// Each word the corrected words of `corrected` (`ProductFilter.correctedSearch`) may stand for, in the order the
    /// correction gives them, at most `maximumLeads`; none when each stands for one word, whose matches are then the
    /// page. A typed search is never spelled out (`FrequentTerms.expanded` spells out prefixes later), so each
    /// alternative of the corrected search is a correction's.
    public static func leads(of corrected: SearchQuery) -> [Lead] {
        var leads: [Lead] = []
        for (index, part) in corrected.parts.enumerated() {
            let words: [SearchQuery.Part]
            switch part {
            case .anyWord(let alternatives): words = alternatives.map { .word($0) }
            case .anyPrefix(let alternatives): words = alternatives.map { .prefix($0) }
            case .word, .prefix, .phrase: continue
            }
            for word in words {
                var parts = corrected.parts
                parts[index] = word
                leads.append(Lead(word: SearchQuery(parts: [word]), search: SearchQuery(parts: parts)))
            }
        }
        return Array(leads.prefix(maximumLeads))
    }
}
