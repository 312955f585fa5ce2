import CatalogModel
import CatalogStore
import CatalogStoreKit
import PostgresNIO

/// Applies films one by one (a listing has a handful); a film changes when a field or any of its links changes.
struct PostgresFilmWriter {
    let mode: WriteMode

    func apply(_ films: [Film], log: inout PostgresChangeLog) async throws -> WriteCounts {
        var counts = WriteCounts()
        let values = PostgresRows.filmValues
        let compared = values + (mode.ownsSource ? ["source"] : [])
        let sql = """
            INSERT INTO films (episode_id, \(values.joined(separator: ", ")), source, changed_seq)
            VALUES (\((1...(values.count + 3)).map { "$\($0)" }.joined(separator: ", ")))
            ON CONFLICT (episode_id) DO UPDATE SET \((compared + ["changed_seq"]).map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            WHERE (\(compared.map { "films.\($0)" }.joined(separator: ", "))) IS DISTINCT FROM (\(compared.map { "excluded.\($0)" }.joined(separator: ", ")))
            RETURNING (xmax = 0) AS inserted
            """
        for film in films {
            var binds = PostgresBindings()
            binds.append(Int64(film.episodeID))
            for value in [film.title, film.openingCrawl, film.director, film.producer, film.releaseDate, film.created, film.edited, film.sourceURL] {
                binds.append(value)
            }
            binds.append(mode.source)
            binds.append(log.nextSeq)
            var written: Bool?
            for try await inserted in try await log.connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: log.logger).decode(
                Bool.self)
            {
                written = inserted
            }
            var changed = written != nil
            if try await replaceLinksIfChanged(of: film, log: log) {
                if !changed {
                    try await log.connection.query(
                        "UPDATE films SET changed_seq = \(log.nextSeq) WHERE episode_id = \(Int64(film.episodeID))", logger: log.logger)
                }
                changed = true
            }
            guard changed else {
                counts.unchanged += 1
                continue
            }
            // No row came back when the film row itself was unchanged: it existed, and only its links changed.
            if written == true { counts.inserted += 1 } else { counts.updated += 1 }
            try await log.record(.film, keys: [String(film.episodeID)], .upsert)
        }
        if case .mirror(let feed) = mode {
            let listed = films.map { Int64($0.episodeID) }
            let query: PostgresQuery = """
                DELETE FROM films WHERE source = \(feed.rawValue) AND NOT (episode_id = ANY(\(listed)::bigint[])) RETURNING episode_id
                """
            var gone: [Int64] = []
            for try await id in try await log.connection.query(query, logger: log.logger).decode(Int64.self) { gone.append(id) }
            try await log.record(.film, keys: gone.sorted().map { String($0) }, .delete)
            counts.deleted = gone.count
        }
        return counts
    }

    private func replaceLinksIfChanged(of film: Film, log: PostgresChangeLog) async throws -> Bool {
        let episodeID = Int64(film.episodeID)
        var stored = StoredFilmLinks()
        let query: PostgresQuery = "SELECT kind, url FROM film_links WHERE episode_id = \(episodeID) ORDER BY kind, position"
        for try await (kind, url) in try await log.connection.query(query, logger: log.logger).decode((String, String).self) {
            try stored.add(kind: kind, url: url)
        }
        if stored.match(film) { return false }
        try await log.connection.query("DELETE FROM film_links WHERE episode_id = \(episodeID)", logger: log.logger)
        let links = StoredFilmLinks.rows(of: film)
        let (kinds, positions, urls) = (links.map(\.kind), links.map { Int64($0.position) }, links.map(\.url))
        try await log.connection.query(
            """
            INSERT INTO film_links (episode_id, kind, position, url)
            SELECT \(episodeID), kind, position, url FROM unnest(\(kinds)::text[], \(positions)::bigint[], \(urls)::text[]) AS l(kind, position, url)
            """, logger: log.logger)
        return true
    }
}
