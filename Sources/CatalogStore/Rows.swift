import CatalogModel
import GRDB

/// A stored film with its derived counts.
public struct FilmRow: Sendable, Equatable {
    public var film: Film
    public var counts: [FilmLinkKind: Int]
    /// `films` (the feed) or `api`.
    public var source: String
    /// The change that last wrote this film.
    public var changedSeq: Int64

    static let columns = FilmColumn.selected.joined(separator: ", ")

    /// Decodes a row selected with `columns`, by column name; links are filled in afterwards.
    init(row: Row) {
        film = FilmColumn.film(row)
        var counts: [FilmLinkKind: Int] = [:]
        for kind in FilmLinkKind.allCases {
            counts[kind] = row[kind.countColumn]
        }
        self.counts = counts
        source = row["source"]
        changedSeq = row["changed_seq"]
    }

    /// Loads the links of `rows` with one query.
    static func attachLinks(to rows: inout [FilmRow], _ db: Database) throws {
        guard !rows.isEmpty else { return }
        let ids = rows.map(\.film.episodeID)
        let placeholders = ids.map { _ in "?" }.joined(separator: ", ")
        var links: [Int: [FilmLinkKind: [String]]] = [:]
        let cursor = try Row.fetchCursor(
            db, sql: "SELECT episode_id, kind, url FROM film_links WHERE episode_id IN (\(placeholders)) ORDER BY episode_id, kind, position",
            arguments: StatementArguments(ids))
        while let row = try cursor.next() {
            let kindText: String = row[1]
            guard let kind = FilmLinkKind(rawValue: kindText) else { throw UnreadableStoredValue(column: "film_links.kind", value: kindText) }
            links[row[0], default: [:]][kind, default: []].append(row[2])
        }
        for index in rows.indices {
            rows[index].film.links = links[rows[index].film.episodeID] ?? [:]
        }
    }
}

/// A stored product.
public struct ProductRow: Sendable, Equatable {
    public var product: Product
    /// `products` (the feed) or `api`.
    public var source: String
    public var changedSeq: Int64

    static let columns = ProductColumn.list(ProductColumn.allCases)

    /// Decodes a row selected with `columns`.
    init(row: Row) {
        product = ProductColumn.product(row)
        source = row[.source]
        changedSeq = row[.changedSeq]
    }
}

/// A category and its derived product count.
public struct CategoryRow: Sendable, Equatable {
    public var name: String
    public var productCount: Int

    static let columns = "name, product_count"

    init(row: Row) {
        name = row[0]
        productCount = row[1]
    }
}
