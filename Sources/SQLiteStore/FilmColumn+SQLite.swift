import CatalogModel
import CatalogStoreKit
import GRDB

extension FilmColumn {
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
