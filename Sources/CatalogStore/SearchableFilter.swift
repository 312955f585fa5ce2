/// A filter with the `search` text every list takes.
public protocol SearchableFilter {
    var search: String? { get }
}

extension SearchableFilter {
    /// The search to match, when there is one: empty text is none.
    public var searchQuery: SearchQuery? {
        guard let search, !search.isEmpty else { return nil }
        return SearchQuery(search)
    }
}

extension FilmFilter: SearchableFilter {}
extension CategoryFilter: SearchableFilter {}
