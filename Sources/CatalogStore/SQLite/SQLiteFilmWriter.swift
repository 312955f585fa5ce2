import CatalogModel
import CatalogStore
import CatalogStoreKit
import GRDB
import GRDBSQLite

/// Applies film batches; a film changes when a field or any of its links changes.
struct SQLiteFilmWriter {
    let db: Database
    let mode: WriteMode

    private static let columns = FilmColumn.values

    static func upsertSQL(ownsSource: Bool) -> String {
        RowUpsert.sql(table: "films", keyColumn: "episode_id", columns: columns, ownsSource: ownsSource)
    }

    func apply(_ films: [Film], log: inout SQLiteChangeLog) throws -> WriteCounts {
        var counts = WriteCounts()
        let exists = try db.cachedStatement(sql: "SELECT 1 FROM films WHERE episode_id = ?")
        let source = mode.source
        let upsert = try db.cachedStatement(sql: Self.upsertSQL(ownsSource: mode.ownsSource))
        for film in films {
            let existed = try Bool.fetchOne(exists, arguments: [film.episodeID]) ?? false
            try upsert.execute(arguments: StatementArguments(FilmColumn.arguments(film) + [source, log.nextSeq]))
            var changed = db.changesCount > 0
            if try replaceLinksIfChanged(of: film) {
                if !changed {
                    try db.execute(sql: "UPDATE films SET changed_seq = ? WHERE episode_id = ?", arguments: [log.nextSeq, film.episodeID])
                }
                changed = true
            }
            guard changed else {
                counts.unchanged += 1
                continue
            }
            if existed { counts.updated += 1 } else { counts.inserted += 1 }
            try log.record(.film, key: String(film.episodeID), .upsert)
        }
        if case .mirror(let feed) = mode {
            let listed = Set(films.lazy.map { String($0.episodeID) })
            counts.deleted = try RowUpsert.deleteUnlisted(
                db, entity: .film, table: "films", keyColumn: "episode_id", feed: feed, listed: listed, log: &log)
        }
        return counts
    }

    private func replaceLinksIfChanged(of film: Film) throws -> Bool {
        let stored = try Row.fetchAll(
            db, sql: "SELECT kind, url FROM film_links WHERE episode_id = ? ORDER BY kind, position", arguments: [film.episodeID])
        var storedLinks: [FilmLinkKind: [String]] = [:]
        for row in stored {
            let kindText: String = row["kind"]
            guard let kind = FilmLinkKind(rawValue: kindText) else { throw UnreadableStoredValue(column: "film_links.kind", value: kindText) }
            storedLinks[kind, default: []].append(row["url"])
        }
        let unchanged = FilmLinkKind.allCases.allSatisfy { (storedLinks[$0] ?? []) == film.links($0) }
        if unchanged { return false }
        try db.execute(sql: "DELETE FROM film_links WHERE episode_id = ?", arguments: [film.episodeID])
        let insert = try db.cachedStatement(sql: "INSERT INTO film_links (episode_id, kind, position, url) VALUES (?, ?, ?, ?)")
        for kind in FilmLinkKind.allCases {
            for (position, url) in film.links(kind).enumerated() {
                try insert.execute(arguments: [film.episodeID, kind.rawValue, position, url])
            }
        }
        return true
    }
}
