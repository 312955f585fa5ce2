import CatalogModel
import CatalogStore

/// A film's links as the store holds them, gathered from its `film_links` rows: to read them, and to tell whether
/// a film's links changed (a film whose links are unchanged keeps its rows).
package struct StoredFilmLinks {
    package private(set) var links: [FilmLinkKind: [String]] = [:]

    package init() {}

    /// Adds one row, read in `kind, position` order.
    package mutating func add(kind: String, url: String) throws {
        guard let linkKind = FilmLinkKind(rawValue: kind) else { throw UnreadableStoredValue(column: "film_links.kind", value: kind) }
        links[linkKind, default: []].append(url)
    }

    /// Whether they are the film's links, in the same order.
    package func match(_ film: Film) -> Bool {
        FilmLinkKind.allCases.allSatisfy { (links[$0] ?? []) == film.links($0) }
    }

    /// The `film_links` rows that hold a film's links.
    package static func rows(of film: Film) -> [(kind: String, position: Int, url: String)] {
        FilmLinkKind.allCases.flatMap { kind in film.links(kind).enumerated().map { (kind.rawValue, $0.offset, $0.element) } }
    }
}
