import CatalogModel
import CatalogStore
import CatalogStoreKit
import GRDB

extension FilmRow {
    static let columns = FilmColumn.selected.joined(separator: ", ")

    /// Decodes a row selected with `columns`, by column name; links are filled in afterwards.
    init(row: Row) {
        var counts: [FilmLinkKind: Int] = [:]
        for kind in FilmLinkKind.allCases {
            counts[kind] = row[kind.countColumn]
        }
        self.init(film: FilmColumn.film(row), counts: counts, source: row["source"], changedSeq: row["changed_seq"])
    }

    /// Loads the links of `rows` with one query.
    static func attachLinks(to rows: inout [FilmRow], _ db: Database) throws {
        guard !rows.isEmpty else { return }
        let ids = rows.map(\.film.episodeID)
        let placeholders = ids.map { _ in "?" }.joined(separator: ", ")
        var links: [Int: StoredFilmLinks] = [:]
        let cursor = try Row.fetchCursor(
            db, sql: "SELECT episode_id, kind, url FROM film_links WHERE episode_id IN (\(placeholders)) ORDER BY episode_id, kind, position",
            arguments: StatementArguments(ids))
        while let row = try cursor.next() {
            try links[row["episode_id"], default: StoredFilmLinks()].add(kind: row["kind"], url: row["url"])
        }
        for index in rows.indices {
            rows[index].film.links = links[rows[index].film.episodeID]?.links ?? [:]
        }
    }
}

extension ProductRow {
    static let columns = ProductColumn.list(ProductColumn.allCases)
}

extension CategoryRow {
    static let columns = "name, product_count"

    init(row: Row) {
        self.init(name: row["name"], productCount: row["product_count"])
    }
}
