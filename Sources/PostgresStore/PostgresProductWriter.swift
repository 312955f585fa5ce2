import CatalogModel
import CatalogStore
import CatalogStoreKit
import PostgresNIO

/// Applies a staged product listing in one statement: the rows that are new or differ from the stored ones are
/// found, numbered with seqs in listing order and written; an unchanged row is not written at all.
struct PostgresProductWriter {
    let mode: WriteMode

    func apply(_ listing: PostgresStagedProducts, log: inout PostgresChangeLog) async throws -> WriteCounts {
        let values = PostgresRows.productValues
        let compared = values.map { "stored.\($0)" } + (mode.ownsSource ? ["stored.source"] : [])
        let given = values.map { "listed.\($0)" } + (mode.ownsSource ? ["$2"] : [])
        let updates = (values + (mode.ownsSource ? ["source"] : []) + ["changed_seq", "search_vector"]).map { "\($0) = excluded.\($0)" }
            .joined(separator: ", ")
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
                INSERT INTO products (serial_code, \(values.joined(separator: ", ")), source, changed_seq, search_vector)
                SELECT serial_code, \(values.joined(separator: ", ")), $2, seq, search_vector FROM numbered
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

    /// New products and their history rows, as the text `COPY` reads (`encodeNew`), sent by `copyNew`.
    struct EncodedProducts: Sendable {
        var rows = ByteBuffer()
        var history = ByteBuffer()
    }

    /// Encodes `products`, and their history rows numbered from the log's next seq (which the log then counts as
    /// recorded), for `copyNew`: with no statement sent, so that the next batch is encoded while the last is written.
    /// Each row carries its search vector when `alphabet` tells it, and the server computes the others'. Each row is
    /// numbered (`row_order`) by `runs`, which gathers its words.
    static func encodeNew(
        _ products: [Product], source: FeedSource, alphabet: PostgresSearchAlphabet, runs: inout PostgresWordRuns, log: inout PostgresChangeLog
    ) -> EncodedProducts {
        var encoded = EncodedProducts()
        guard !products.isEmpty else { return encoded }
        var vectors = PostgresProductVector(alphabet: alphabet)
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
            PostgresStagedProducts.appendRecord(product, to: &encoded.rows)
            encoded.rows.writeString("\t\(source.rawValue)\t\(seq)\t")
            let written = PostgresStagedProducts.appendVector(of: product, writer: &vectors, to: &encoded.rows)
            let order = runs.numberRow(vectorWritten: written)
            if written { vectors.addWords(to: &runs) }
            encoded.rows.writeString("\t\(order)\n")
            encoded.history.writeString("\(seq)\t")
            encoded.history.writeImmutableBuffer(entity)
            PostgresStagedProducts.appendField(product.serialCode, to: &encoded.history)
            encoded.history.writeInteger(UInt8(ascii: "\t"))
            encoded.history.writeImmutableBuffer(historyTail)
            encoded.history.writeInteger(UInt8(ascii: "\n"))
        }
        log.recorded(.product, count: products.count)
        return encoded
    }

    /// Inserts the products `encodeNew` encoded into `table`, the products table a streamed listing fills
    /// (`PostgresTableRebuild`), which had none of them, and their history rows into `history`, the history's table
    /// or its copy: a key there already (given twice) fails it when the table is filled in place, with its key. Both
    /// go in with `COPY`, which PostgreSQL loads without planning a statement or decoding parameters.
    static func copyNew(
        _ encoded: EncodedProducts, into table: String, history: String, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        guard encoded.rows.readableBytes > 0 else { return }
        try await failingOnAKeyGivenTwice {
            try await connection.copyFrom(
                table: table, columns: ["serial_code"] + PostgresRows.productValues + ["source", "changed_seq", "search_vector", "row_order"],
                logger: logger
            ) { try await $0.write(encoded.rows) }
            try await connection.copyFrom(table: history, columns: ["seq", "entity", "key", "op", "author", "at"], logger: logger) {
                try await $0.write(encoded.history)
            }
        }
    }

    /// Runs `body`, a step of a streamed listing, and ends the listing (`StreamedListingAbandoned`) when a unique key
    /// refuses a row: the run then reads the listing whole, which keeps the last of a key's records.
    static func failingOnAKeyGivenTwice(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw StreamedListingAbandoned("a key came twice (\(PostgresFailure.describe(error)))")
        }
    }

    /// The staged rows of the listing whose id is `$1`.
    private static let listedSQL =
        "SELECT \((["serial_code"] + PostgresRows.productValues).joined(separator: ", ")), position, search_vector FROM staged_products WHERE staging_id = $1"

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
