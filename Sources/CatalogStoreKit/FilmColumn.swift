import CatalogModel
import CatalogStore

/// The `films` columns a film record fills, listed once for both engines: the select list, the upsert's columns
/// and its arguments come from here. (Films are a handful of rows, so they are read by name.)
package enum FilmColumn: String, CaseIterable, Sendable {
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
    package static let values = allCases.dropFirst().map(\.rawValue)

    /// What a read selects: the record, its derived counts, the row's owner and the change that wrote it last.
    package static let selected = (allCases.map(\.rawValue) + FilmLinkKind.allCases.map(\.countColumn) + ["source", "changed_seq"])
}
