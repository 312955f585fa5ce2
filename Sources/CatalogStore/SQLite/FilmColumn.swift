import CatalogModel
import GRDB

/// The `films` columns a film record fills, listed once: the select list, the upsert's columns and its
/// arguments come from here. (Films are a handful of rows, so they are read by GRDB's own name lookup.)
enum FilmColumn: String, CaseIterable {
    case episodeID = "episode_id"
    case title
    case openingCrawl = "opening_crawl"
    case director
    case producer
    case releaseDate = "release_date"
    case created
    case edited
    case sourceURL = "source_url"

    /// The record's columns after the key.
    static let values = allCases.dropFirst().map(\.rawValue)

    /// What a read selects: the record, its derived counts, the row's owner and the change that wrote it last.
    static let selected = (allCases.map(\.rawValue) + FilmLinkKind.allCases.map(\.countColumn) + ["source", "changed_seq"])

    /// The record's values in `allCases` order, for the upsert.
    static func arguments(_ film: Film) -> [any DatabaseValueConvertible] {
        [film.episodeID, film.title, film.openingCrawl, film.director, film.producer, film.releaseDate, film.created, film.edited, film.sourceURL]
    }

    /// The film in a row that selected `selected`; links are filled in afterwards.
    static func film(_ row: Row) -> Film {
        Film(
            episodeID: row[episodeID.rawValue], title: row[title.rawValue], openingCrawl: row[openingCrawl.rawValue],
            director: row[director.rawValue], producer: row[producer.rawValue], releaseDate: row[releaseDate.rawValue],
            created: row[created.rawValue], edited: row[edited.rawValue], sourceURL: row[sourceURL.rawValue])
    }
}
