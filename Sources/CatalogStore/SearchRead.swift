/// One way a page of a search is read. A plan (`SearchPlanner.plan`) is the order in which they are tried: each but the
/// last may decline, and then the next one is tried.
public enum SearchRead: String, Sendable, CaseIterable {
    /// No read: the vocabulary tells that the search matches no product. The page is empty and counted 0.
    case nothing
    /// The keyset of an ordering other than relevance, with the search as one of the conditions.
    case keyset
    /// A first page from the best rank alone, in row order, each row carrying the count. It declines when that rank
    /// holds less than a page.
    case bestRankFirst = "best_rank_first"
    /// Every match of one word or typed prefix at once, with its rank, from the entries the engine keeps of each word
    /// (PostgreSQL's table of each product's words, which tells each match's rank without reading its row); sorted. A
    /// search of several parts is read so from its lead (`SearchLead`), its other words tested by their sets. It
    /// declines past its candidate limit, and for a search with no entries of its own (SQLite: of one part).
    case wordEntries = "word_entries"
    /// Every match of the search at once from the search index, with the filters checked on each; sorted. It declines
    /// past its candidate limit.
    case matchesThenFilters = "matches_then_filters"
    /// Every row the filters and the search select at once, with the engine free to choose its indexes; sorted. It
    /// declines past its candidate limit.
    case matchesWithFilters = "matches_with_filters"
    /// The ranks walked in row order, each step reading as many matches as the page still needs. It always answers.
    case walk
}
