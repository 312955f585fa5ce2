import CatalogModel
import CatalogStore
import CatalogStoreKit
import PostgresNIO

extension PostgresCatalogStore {
    public func beginImport(source: FeedSource, startedBy: String?) async throws -> ImportReport {
        try await transaction(.write) { connection in
            let startedAt = Timestamp.now()
            let query: PostgresQuery = """
                INSERT INTO imports (source, status, started_at, started_by) VALUES (\(source.rawValue), 'running', \(startedAt), \(startedBy))
                RETURNING id
                """
            var id: Int64 = 0
            for try await inserted in try await connection.query(query, logger: logger).decode(Int64.self) { id = inserted }
            try await Self.bumpImportsVersion(connection, logger: logger)
            return ImportReport(id: id, source: source, status: .running, startedAt: startedAt, startedBy: startedBy)
        }
    }

    /// Once the claim is held, no other replica runs `source`: its runs still `running` were left by a replica that
    /// stopped, and are marked failed (with the imports version, in one transaction).
    public func claimImport(of source: FeedSource) async throws -> ImportClaimOutcome {
        let logger = logger
        let claim = try await PostgresClaim.claim(
            PostgresLock.importRun(source), client: client, logger: logger, wait: connectionWait, store: description
        ) { connection in
            try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger)
            do {
                let query: PostgresQuery = """
                    UPDATE imports SET status = 'failed', finished_at = \(Timestamp.now()),
                        error = 'interrupted: the replica running it stopped during the run'
                    WHERE source = \(source.rawValue) AND status = 'running' RETURNING id
                    """
                var failed = 0
                for try await _ in try await connection.query(query, logger: logger) { failed += 1 }
                if failed > 0 { try await Self.bumpImportsVersion(connection, logger: logger) }
                if source == .products {
                    // Rows staged by a run whose replica stopped before it could discard them: no run of products is
                    // in progress now, and an API write's staged rows are its own transaction's, unseen here.
                    try await connection.query("DELETE FROM staged_products", logger: logger)
                }
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
        if let claim { return .claimed(claim) }
        let running = try await transaction(.read) { connection in
            try await fetch(
                connection, "SELECT id FROM imports WHERE source = $1 AND status = 'running' ORDER BY id DESC LIMIT 1", [source.rawValue],
                decode: { try $0[0].decode(Int64.self) }
            ).first
        }
        return .heldElsewhere(runningImport: running)
    }

    public func lastSuccessfulImports() async throws -> [FeedSource: String] {
        try await transaction(.read) { connection in
            var finished: [FeedSource: String] = [:]
            for source in FeedSource.allCases {
                let query: PostgresQuery = """
                    SELECT finished_at FROM imports WHERE source = \(source.rawValue) AND status = 'succeeded' ORDER BY finished_at DESC LIMIT 1
                    """
                for try await time in try await connection.query(query, logger: logger).decode(String.self) { finished[source] = time }
            }
            return finished
        }
    }

    public func feedPages(source: FeedSource) async throws -> [String: FeedPageState] {
        try await transaction(.read) { connection in
            var pages: [String: FeedPageState] = [:]
            let query: PostgresQuery = """
                SELECT url, etag, last_modified, next_url, total, records, digest FROM feed_pages
                WHERE source = \(source.rawValue) AND family_version = (SELECT version FROM versions WHERE name = \(source.family.rawValue))
                """
            for try await (url, etag, lastModified, nextURL, total, records, digest) in try await connection.query(query, logger: logger).decode(
                (String, String?, String?, String?, Int64?, Int64, String?).self)
            {
                pages[url] = FeedPageState(
                    url: url, etag: etag, lastModified: lastModified, nextURL: nextURL, total: total.map(Int.init), records: Int(records),
                    digest: digest)
            }
            return pages
        }
    }

    public func makeStaging() async throws -> any ImportStaging {
        PostgresImportStaging(store: self)
    }

    /// Applies the run only while its claim is still held, checked inside the transaction: a claim whose connection
    /// ended may already be another replica's.
    public func completeImport(_ report: ImportReport, listing: CompletedListing, under claim: any StoreClaim) async throws -> ImportReport {
        let (pages, logger) = (listing.pagesToRecord, logger)
        switch listing.records {
        case .films(let films):
            return try await writeImport(report, pages: pages, under: claim) { log, mode in
                try await PostgresFilmWriter(mode: mode).apply(films, log: &log)
            }
        case .products(let products):
            let searchAlphabet = searchAlphabet
            return try await writeImport(report, pages: pages, under: claim) { log, mode in
                let alphabet = try await searchAlphabet.alphabet(log.connection, logger: logger)
                return try await PostgresStagedProducts.withStaged(products, on: log.connection, alphabet: alphabet, logger: logger) { staged in
                    try await PostgresProductWriter(mode: mode).apply(staged, log: &log)
                }
            }
        case .stagedProducts(let staging): return try await staging.complete(report, pages: listing.pages, under: claim)
        case .unchanged(let records): return try await writeImport(report, pages: pages, under: claim) { _, _ in WriteCounts(unchanged: records) }
        }
    }

    /// Writes one run's listing with `write` and finishes the run, in one recording transaction, while `claim` is
    /// held; then refreshes the statistics when the run rewrote much (`refreshStatistics`).
    func writeImport(
        _ report: ImportReport, pages: [FeedPageState]?, under claim: any StoreClaim,
        _ write: @escaping @Sendable (inout PostgresChangeLog, WriteMode) async throws -> WriteCounts
    ) async throws -> ImportReport {
        guard let claim = claim as? PostgresClaim else { throw ForeignImportPart("import claim", store: description) }
        let logger = logger
        let completed = try await recordingTransaction(author: report.source.author) { connection, log in
            guard try await claim.isHeld(on: connection, logger: logger) else { throw ImportClaimLost(source: report.source) }
            let counts = try await write(&log, .mirror(report.source))
            return try await Self.finishImport(report, counts: counts, pages: pages, log: log)
        }
        await refreshStatistics(after: completed)
        return completed
    }

    /// After a run that rewrote a large share of its listing (a first import, say), the table is vacuumed and its
    /// statistics read again, rather than when autovacuum comes by: without statistics a search plans as if every
    /// word were common, and walks the table for a word no row holds; without the visibility map, a count read
    /// from an index visits every row it counts; and the search index's pending entries are merged. The run has
    /// committed; a failure here is logged, and autovacuum does the same later.
    func refreshStatistics(after report: ImportReport) async {
        let rewritten = report.inserted + report.updated + report.deleted
        guard report.source == .products, rewritten >= 1000, rewritten * 10 >= report.fetched else { return }
        do {
            _ = try await transaction(.single) { connection in
                try await connection.query("VACUUM (ANALYZE) products, product_word_runs, product_word_counts", logger: logger)
            }
        } catch {
            logger.warning("statistics not refreshed after the import", metadata: ["import.id": "\(report.id)", "error": "\(error)"])
        }
    }

    /// The end of an import's transaction once its listing is written: the pages for the next run's conditional
    /// requests (nil keeps the stored ones) and the succeeded report.
    static func finishImport(_ report: ImportReport, counts: WriteCounts, pages: [FeedPageState]?, log: PostgresChangeLog) async throws
        -> ImportReport
    {
        var report = report
        report.succeed(with: counts)
        if let pages {
            try await recordPages(
                pages, of: report.source, atVersion: try await log.versionAtCommit(of: report.source.family), log.connection, logger: log.logger)
        }
        try await saveReport(report, log.connection, logger: log.logger)
        return report
    }

    /// Replaces the feed's page states, marked with the version its family has once this transaction commits.
    private static func recordPages(
        _ pages: [FeedPageState], of source: FeedSource, atVersion familyVersion: Int64, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query("DELETE FROM feed_pages WHERE source = \(source.rawValue)", logger: logger)
        for page in pages {
            try await connection.query(
                """
                INSERT INTO feed_pages (source, url, etag, last_modified, next_url, total, records, digest, family_version)
                VALUES (\(source.rawValue), \(page.url), \(page.etag), \(page.lastModified), \(page.nextURL), \(page.total.map(Int64.init)),
                    \(Int64(page.records)), \(page.digest), \(familyVersion))
                """, logger: logger)
        }
    }

    public func failImport(_ report: ImportReport) async throws {
        try await transaction(.write) { connection in
            var report = report
            report.status = .failed
            report.finishedAt = report.finishedAt ?? Timestamp.now()
            try await Self.saveReport(report, connection, logger: logger)
        }
    }

    public func importReports(page request: PageRequest) async throws -> Page<[ImportReport]> {
        try await transaction(.read) { connection in
            try await page(
                .imports, connection, request: request, filters: PostgresConditions(), search: nil, walkIn: .single,
                decode: PostgresRows.importReport
            ) { rows in
                try await Self.attachRejections(to: &rows, connection, logger: logger)
            }
        }
    }

    public func importReport(id: Int64) async throws -> (ImportReport?, StoreVersions) {
        try await transaction(.read) { connection in
            var reports = try await fetch(
                connection, "SELECT \(PostgresRows.importColumns) FROM imports WHERE id = $1", [id], decode: PostgresRows.importReport)
            try await Self.attachRejections(to: &reports, connection, logger: logger)
            return (reports.first, try await Self.versions(connection, logger: logger))
        }
    }

    private static func bumpImportsVersion(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("UPDATE versions SET version = version + 1 WHERE name = \(ResourceFamily.imports.rawValue)", logger: logger)
    }

    private static func saveReport(_ report: ImportReport, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            UPDATE imports SET status = \(report.status.rawValue), finished_at = \(report.finishedAt), fetched = \(Int64(report.fetched)),
                inserted = \(Int64(report.inserted)), updated = \(Int64(report.updated)), unchanged = \(Int64(report.unchanged)),
                deleted = \(Int64(report.deleted)), rejected = \(Int64(report.rejected)), error = \(report.error)
            WHERE id = \(report.id)
            """, logger: logger)
        try await connection.query("DELETE FROM import_rejections WHERE import_id = \(report.id)", logger: logger)
        let rejections = report.rejections
        guard !rejections.isEmpty else { return try await bumpImportsVersion(connection, logger: logger) }
        try await connection.query(
            """
            INSERT INTO import_rejections (import_id, position, record_index, key, reason)
            SELECT \(report.id), n - 1, record_index, CASE WHEN has_key THEN key END, reason
            FROM unnest(
                \(rejections.map { Int64($0.index) })::bigint[], \(rejections.map { $0.key != nil })::boolean[], \(rejections.map { $0.key ?? "" })::text[],
                \(rejections.map(\.reason))::text[]
            ) WITH ORDINALITY AS lines(record_index, has_key, key, reason, n)
            """, logger: logger)
        try await bumpImportsVersion(connection, logger: logger)
    }

    /// Fills in the rejection lines of `reports` with one query.
    private static func attachRejections(to reports: inout [ImportReport], _ connection: PostgresConnection, logger: Logger) async throws {
        let ids = reports.filter { $0.rejected > 0 }.map(\.id)
        guard !ids.isEmpty else { return }
        var byReport: [Int64: [Rejection]] = [:]
        let query: PostgresQuery = """
            SELECT import_id, record_index, key, reason FROM import_rejections WHERE import_id = ANY(\(ids)::bigint[]) ORDER BY import_id, position
            """
        for try await (id, index, key, reason) in try await connection.query(query, logger: logger).decode((Int64, Int64, String?, String).self) {
            byReport[id, default: []].append(Rejection(index: Int(index), key: key, reason: reason))
        }
        for index in reports.indices {
            reports[index].rejections = byReport[reports[index].id] ?? []
        }
    }
}
