import CatalogModel
import CatalogStore
import PostgresNIO

extension PostgresCatalogStore {
    public func upsertProducts(_ products: [Product], author: String) async throws -> WriteCounts {
        try await recordingTransaction(author: author) { connection, log in
            try await PostgresStagedProducts.withStaged(products, on: connection, logger: log.logger) { staged in
                try await PostgresProductWriter(mode: .merge).apply(staged, log: &log)
            }
        }
    }

    public func upsertFilms(_ films: [Film], author: String) async throws -> WriteCounts {
        try await recordingTransaction(author: author) { connection, log in
            try await PostgresFilmWriter(mode: .merge).apply(films, log: &log)
        }
    }

    public func deleteProduct(serialCode: String, author: String) async throws -> Bool {
        try await deleteRow(.product, table: "products", key: "serial_code", value: serialCode, author: author)
    }

    public func deleteFilm(episodeID: Int, author: String) async throws -> Bool {
        try await deleteRow(.film, table: "films", key: "episode_id::text", value: String(episodeID), author: author)
    }

    private func deleteRow(_ entity: Change.Entity, table: String, key: String, value: String, author: String) async throws -> Bool {
        try await recordingTransaction(author: author) { connection, log in
            let deleted = try await fetch(connection, "DELETE FROM \(table) WHERE \(key) = $1 RETURNING 1", [value], decode: Self.integer)
            guard !deleted.isEmpty else { return false }
            try await log.record(entity, keys: [value], .delete)
            return true
        }
    }
}

/// How a batch of records is applied.
enum PostgresWriteMode {
    /// A feed's complete listing: its rows missing from the listing are deleted, and every listed row is owned by the feed.
    case mirror(FeedSource)
    /// Records added or updated through the API; existing rows keep their source.
    case merge

    var source: String {
        switch self {
        case .mirror(let feed): feed.rawValue
        case .merge: "api"
        }
    }

    var ownsSource: Bool {
        if case .mirror = self { true } else { false }
    }
}

/// Applies a staged product listing in one statement: the rows that are new or differ from the stored ones are
/// found, numbered with seqs in listing order and written; an unchanged row is not written at all.
struct PostgresProductWriter {
    let mode: PostgresWriteMode

    func apply(_ listing: PostgresStagedProducts, log: inout PostgresChangeLog) async throws -> WriteCounts {
        let values = PostgresRows.productValues
        let compared = values.map { "stored.\($0)" } + (mode.ownsSource ? ["stored.source"] : [])
        let given = values.map { "listed.\($0)" } + (mode.ownsSource ? ["$2"] : [])
        let updates = (values + (mode.ownsSource ? ["source"] : []) + ["changed_seq"]).map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let startsEmpty = mode.ownsSource ? try await Self.tableIsEmpty(log.connection, logger: log.logger) : false
        // Into an empty table every listed row is new: nothing to compare, no conflict to look for (a third of the
        // statement's time for 100,000 products), and no row to delete afterwards.
        let changedRows =
            startsEmpty
            ? "SELECT listed.*, true AS is_new FROM listed"
            : """
            SELECT listed.*, stored.serial_code IS NULL AS is_new FROM listed LEFT JOIN products AS stored USING (serial_code)
            WHERE stored.serial_code IS NULL OR (\(compared.joined(separator: ", "))) IS DISTINCT FROM (\(given.joined(separator: ", ")))
            """
        // The history rows are written by the same statement, numbered as the rows are: nothing goes back and forth.
        let sql = """
            WITH listed AS (\(Self.listedSQL)),
            changed AS (\(changedRows)),
            numbered AS (SELECT changed.*, $3::bigint - 1 + row_number() OVER (ORDER BY position) AS seq FROM changed),
            written AS (
                INSERT INTO products (serial_code, \(values.joined(separator: ", ")), source, changed_seq)
                SELECT serial_code, \(values.joined(separator: ", ")), $2, seq FROM numbered
                \(startsEmpty ? "" : "ON CONFLICT (serial_code) DO UPDATE SET \(updates)")
            ),
            history AS (
                INSERT INTO changes (seq, entity, key, op, author, at)
                SELECT seq, $4, serial_code, $5, $6, $7 FROM numbered
            )
            SELECT (SELECT COUNT(*) FROM numbered) AS changed, (SELECT COUNT(*) FROM numbered WHERE is_new) AS inserted,
                (SELECT COUNT(*) FROM listed) AS listed
            """
        var binds = PostgresBindings()
        binds.append(listing.id)
        binds.append(mode.source)
        binds.append(log.nextSeq)
        binds.append(Change.Entity.product.rawValue)
        binds.append(Change.Operation.upsert.rawValue)
        binds.append(log.author)
        binds.append(log.at)
        if mode.ownsSource {
            // A feed's listing numbers its changed rows with one sort: in memory, rather than the 4 MB default's
            // files on disk (a listing of 100,000 rows needs about 16 MB), for this transaction only.
            try await log.connection.query("SET LOCAL work_mem = '\(unescaped: Self.listingWorkMemory)'", logger: log.logger)
        }
        var (changed, inserted, listed) = (0, 0, 0)
        let rows = try await log.connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: log.logger)
        for try await row in rows.decode((Int, Int, Int).self) { (changed, inserted, listed) = row }
        log.recorded(.product, count: changed)
        var counts = WriteCounts(inserted: inserted, updated: changed - inserted, unchanged: listed - changed)
        if case .mirror(let feed) = mode, !startsEmpty {
            counts.deleted = try await deleteUnlisted(listing, feed: feed, log: &log)
        }
        return counts
    }

    /// Whether `products` is empty. Asked inside a transaction holding the history lock (`PostgresChangeLog`), it
    /// stays so for everyone else until that transaction ends: every write of products through the store takes it.
    static func tableIsEmpty(_ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        var empty = false
        for try await value in try await connection.query("SELECT NOT EXISTS (SELECT 1 FROM products)", logger: logger).decode(Bool.self) {
            empty = value
        }
        return empty
    }

    static let listingWorkMemory = "64MB"

    /// Inserts `products`, and their history rows numbered from the log's next seq, into the table a streamed
    /// listing fills, which had none of them: a key there already (given twice) fails it. Both go in with `COPY`,
    /// which PostgreSQL loads without planning a statement or decoding parameters.
    static func insertNew(_ products: [Product], source: FeedSource, log: inout PostgresChangeLog) async throws {
        guard !products.isEmpty else { return }
        var rows = ByteBuffer()
        var history = ByteBuffer()
        // Every history row has the same entity, operation, author and time: written out once.
        var entity = ByteBuffer()
        PostgresStagedProducts.appendField(Change.Entity.product.rawValue, to: &entity)
        entity.writeInteger(UInt8(ascii: "\t"))
        var historyTail = ByteBuffer()
        for (number, value) in [Change.Operation.upsert.rawValue, log.author, log.at].enumerated() {
            if number > 0 { historyTail.writeInteger(UInt8(ascii: "\t")) }
            PostgresStagedProducts.appendField(value, to: &historyTail)
        }
        for (offset, product) in products.enumerated() {
            let seq = String(log.nextSeq + Int64(offset))
            PostgresStagedProducts.appendRecord(product, to: &rows)
            rows.writeString("\t\(source.rawValue)\t\(seq)\n")
            history.writeString("\(seq)\t")
            history.writeImmutableBuffer(entity)
            PostgresStagedProducts.appendField(product.serialCode, to: &history)
            history.writeInteger(UInt8(ascii: "\t"))
            history.writeImmutableBuffer(historyTail)
            history.writeInteger(UInt8(ascii: "\n"))
        }
        do {
            try await log.connection.copyFrom(
                table: "products", columns: ["serial_code"] + PostgresRows.productValues + ["source", "changed_seq"], logger: log.logger
            ) { try await $0.write(rows) }
            try await log.connection.copyFrom(table: "changes", columns: ["seq", "entity", "key", "op", "author", "at"], logger: log.logger) {
                try await $0.write(history)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw StreamedListingAbandoned("a key came twice (\(PostgresFailure.describe(error)))")
        }
        log.recorded(.product, count: products.count)
    }

    /// The staged rows of the listing whose id is `$1`.
    private static let listedSQL =
        "SELECT \((["serial_code"] + PostgresRows.productValues).joined(separator: ", ")), position FROM staged_products WHERE staging_id = $1"

    /// Deletes the feed's rows that the listing no longer has, and records each deletion.
    private func deleteUnlisted(_ listing: PostgresStagedProducts, feed: FeedSource, log: inout PostgresChangeLog) async throws -> Int {
        let query: PostgresQuery = """
            DELETE FROM products AS stored WHERE stored.source = \(feed.rawValue)
                AND NOT EXISTS (SELECT 1 FROM staged_products AS listed WHERE listed.staging_id = \(listing.id) AND listed.serial_code = stored.serial_code)
            RETURNING stored.serial_code
            """
        var gone: [String] = []
        for try await key in try await log.connection.query(query, logger: log.logger).decode(String.self) {
            gone.append(key)
        }
        gone.sort()
        try await log.record(.product, keys: gone, .delete)
        return gone.count
    }
}

/// Applies films one by one (a listing has a handful); a film changes when a field or any of its links changes.
struct PostgresFilmWriter {
    let mode: PostgresWriteMode

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
        var stored: [FilmLinkKind: [String]] = [:]
        let query: PostgresQuery = "SELECT kind, url FROM film_links WHERE episode_id = \(episodeID) ORDER BY kind, position"
        for try await (kindText, url) in try await log.connection.query(query, logger: log.logger).decode((String, String).self) {
            guard let kind = FilmLinkKind(rawValue: kindText) else { throw UnreadableStoredValue(column: "film_links.kind", value: kindText) }
            stored[kind, default: []].append(url)
        }
        if FilmLinkKind.allCases.allSatisfy({ (stored[$0] ?? []) == film.links($0) }) { return false }
        try await log.connection.query("DELETE FROM film_links WHERE episode_id = \(episodeID)", logger: log.logger)
        var kinds: [String] = []
        var positions: [Int64] = []
        var urls: [String] = []
        for kind in FilmLinkKind.allCases {
            for (position, url) in film.links(kind).enumerated() {
                kinds.append(kind.rawValue)
                positions.append(Int64(position))
                urls.append(url)
            }
        }
        try await log.connection.query(
            """
            INSERT INTO film_links (episode_id, kind, position, url)
            SELECT \(episodeID), kind, position, url FROM unnest(\(kinds)::text[], \(positions)::bigint[], \(urls)::text[]) AS l(kind, position, url)
            """, logger: log.logger)
        return true
    }
}
