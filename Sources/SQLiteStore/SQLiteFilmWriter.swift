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
        var stored = StoredFilmLinks()
        for row in try Row.fetchAll(
            db, sql: "SELECT kind, url FROM film_links WHERE episode_id = ? ORDER BY kind, position", arguments: [film.episodeID])
        {
            try stored.add(kind: row["kind"], url: row["url"])
        }
        if stored.match(film) { return false }
        try db.execute(sql: "DELETE FROM film_links WHERE episode_id = ?", arguments: [film.episodeID])
        let insert = try db.cachedStatement(sql: "INSERT INTO film_links (episode_id, kind, position, url) VALUES (?, ?, ?, ?)")
        for link in StoredFilmLinks.rows(of: film) {
            try insert.execute(arguments: [film.episodeID, link.kind, link.position, link.url])
        }
        return true
    }
}
