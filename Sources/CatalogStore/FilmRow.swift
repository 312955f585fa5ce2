import CatalogModel

/// A stored film with its derived counts.
public struct FilmRow: Sendable, Equatable {
    public var film: Film
    public var counts: [FilmLinkKind: Int]
    /// `films` (the feed) or `api`.
    public var source: String
    /// The change that last wrote this film.
    public var changedSeq: Int64

    public init(film: Film, counts: [FilmLinkKind: Int], source: String, changedSeq: Int64) {
        self.film = film
        self.counts = counts
        self.source = source
        self.changedSeq = changedSeq
    }
}
