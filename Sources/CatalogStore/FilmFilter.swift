/// What a list of films is narrowed to (`CatalogStore.films`).
public struct FilmFilter: Sendable {
    public var director: String?
    /// Words matched against title, director, producer and opening crawl (`SearchQuery`, `SearchFields.films`).
    public var search: String?

    public init(director: String? = nil, search: String? = nil) {
        self.director = director
        self.search = search
    }
}
