import CatalogModel
import CatalogStore
import CatalogStoreKit
import GRDB

extension SQLiteCatalogStore {
    static let importListing = SQLiteListing(
        table: "imports",
        columns: "id, source, status, started_at, finished_at, fetched, inserted, updated, unchanged, deleted, rejected, error, started_by",
        keyColumn: "id", ordering: .imports)

    public func beginImport(source: FeedSource, startedBy: String?) async throws -> ImportReport {
        try await write { db in
            let startedAt = Timestamp.now()
            try db.execute(
                sql: "INSERT INTO imports (source, status, started_at, started_by) VALUES (?, 'running', ?, ?)",
                arguments: [source.rawValue, startedAt, startedBy])
            try Self.bumpImportsVersion(db)
            return ImportReport(id: db.lastInsertedRowID, source: source, status: .running, startedAt: startedAt, startedBy: startedBy)
        }
    }

    /// Runs left `running` by a process that stopped mid-import are marked failed; called at start-up.
    /// The claim is an exclusive `flock` on a file beside the store (`catalog.sqlite.import-products.lock`): every
    /// process on the file sees it (`catalogd serve` and `catalogd import` from a shell), and it dies with its process.
    public func claimImport(of source: FeedSource) async throws -> ImportClaimOutcome {
        guard let claim = try SQLiteFileClaim(path: "\(path).import-\(source.rawValue).lock") else {
            let running = try await read { db in
                try Int64.fetchOne(
                    db, sql: "SELECT id FROM imports WHERE source = ? AND status = 'running' ORDER BY id DESC LIMIT 1", arguments: [source.rawValue])
            }
            return .heldElsewhere(runningImport: running)
        }
        do {
            try await write { db in
                try db.execute(
                    sql: """
                        UPDATE imports SET status = 'failed', finished_at = ?, error = 'interrupted: the process stopped during the run'
                        WHERE source = ? AND status = 'running'
                        """,
                    arguments: [Timestamp.now(), source.rawValue])
                if db.changesCount > 0 { try Self.bumpImportsVersion(db) }
            }
        } catch {
            await claim.release()
            throw error
        }
        return .claimed(claim)
    }

    /// When each source's last successful run finished (ISO 8601 UTC); a source that never succeeded is absent.
    public func lastSuccessfulImports() async throws -> [FeedSource: String] {
        try await read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT finished_at FROM imports WHERE source = ? AND status = 'succeeded' ORDER BY finished_at DESC LIMIT 1")
            var finished: [FeedSource: String] = [:]
            for source in FeedSource.allCases {
                finished[source] = try String.fetchOne(statement, arguments: [source.rawValue])
            }
            return finished
        }
    }

    /// The page states of the last successful run of `source`, by URL.
    public func feedPages(source: FeedSource) async throws -> [String: FeedPageState] {
        try await read { db in
            var pages: [String: FeedPageState] = [:]
            let statement = try db.cachedStatement(
                sql: """
                    SELECT url, etag, last_modified, next_url, total, records, digest FROM feed_pages
                    WHERE source = ? AND family_version = (SELECT version FROM versions WHERE name = ?)
                    """)
            for row in try Row.fetchAll(statement, arguments: [source.rawValue, source.family.rawValue]) {
                pages[row["url"]] = FeedPageState(
                    url: row["url"], etag: row["etag"], lastModified: row["last_modified"], nextURL: row["next_url"], total: row["total"],
                    records: row["records"], digest: row["digest"])
            }
            return pages
        }
    }

    /// Mirrors a complete listing, remembers its pages and finishes the report, all in one transaction:
    /// readers see the previous state until the commit and never half of a run. The claim, a lock on a file,
    /// cannot be lost while this process lives, so there is nothing to check about it.
    public func completeImport(_ report: ImportReport, listing: CompletedListing, under claim: any StoreClaim) async throws -> ImportReport {
        let pages = listing.pagesToRecord
        switch listing.records {
        case .films(let films):
            return try await writeImport(report, pages: pages) { db, mode, log in try SQLiteFilmWriter(db: db, mode: mode).apply(films, log: &log) }
        case .products(let products):
            return try await writeImport(report, pages: pages) { db, mode, log in
                try SQLiteProductWriter.apply(products, mode: mode, db: db, log: &log)
            }
        case .stagedProducts(let staging): return try await staging.complete(report, pages: listing.pages, under: claim)
        case .unchanged(let records): return try await writeImport(report, pages: pages) { _, _, _ in WriteCounts(unchanged: records) }
        }
    }

    /// Writes one run's listing with `listing` and finishes the run, in one transaction.
    func writeImport(
        _ report: ImportReport, pages: [FeedPageState]?,
        _ listing: @escaping @Sendable (Database, WriteMode, inout SQLiteChangeLog) throws -> WriteCounts
    ) async throws -> ImportReport {
        try await write { db in
            var log = try SQLiteChangeLog(db, author: report.source.author)
            let counts = try listing(db, .mirror(report.source), &log)
            return try Self.finishImport(report, counts: counts, pages: pages, log: log, db)
        }
    }

    /// The end of an import's transaction once its listing is written: the versions, the pages for the next
    /// run's conditional requests (nil keeps the stored ones) and the succeeded report.
    static func finishImport(_ report: ImportReport, counts: WriteCounts, pages: [FeedPageState]?, log: SQLiteChangeLog, _ db: Database) throws
        -> ImportReport
    {
        var report = report
        try log.finish()
        report.succeed(with: counts)
        if let pages { try recordPages(pages, of: report.source, db) }
        try saveReport(report, db)
        return report
    }

    /// Replaces the feed's page states, marked with the version its family has once this transaction commits.
    private static func recordPages(_ pages: [FeedPageState], of source: FeedSource, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM feed_pages WHERE source = ?", arguments: [source.rawValue])
        let familyVersion = try Int64.fetchOne(db, sql: "SELECT version FROM versions WHERE name = ?", arguments: [source.family.rawValue])
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO feed_pages (source, url, etag, last_modified, next_url, total, records, digest, family_version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for page in pages {
            try insert.execute(arguments: [
                source.rawValue, page.url, page.etag, page.lastModified, page.nextURL, page.total, page.records, page.digest, familyVersion,
            ])
        }
    }

    /// Records a failed run; the catalogue itself is untouched.
    public func failImport(_ report: ImportReport) async throws {
        try await write { db in
            var report = report
            report.status = .failed
            report.finishedAt = report.finishedAt ?? Timestamp.now()
            try Self.saveReport(report, db)
        }
    }

    public func importReports(page request: PageRequest) async throws -> Page<[ImportReport]> {
        try await read { db in
            var (rows, next, previous, _) = try Self.importListing.page(
                db, request: request, filters: SQLiteConditions(), search: nil, decode: Self.decodeReport)
            try ImportRejections.attach(to: &rows, db)
            let count = try Self.importListing.count(db, SQLiteConditions())
            return Page(rows: rows, count: count, nextCursor: next, previousCursor: previous, versions: try StoreVersions.fetch(db))
        }
    }

    public func importReport(id: Int64) async throws -> (ImportReport?, StoreVersions) {
        try await read { db in
            let row = try Row.fetchOne(try db.cachedStatement(sql: "SELECT \(Self.importListing.columns) FROM imports WHERE id = ?"), arguments: [id])
            var reports = try row.map { [try Self.decodeReport($0)] } ?? []
            try ImportRejections.attach(to: &reports, db)
            return (reports.first, try StoreVersions.fetch(db))
        }
    }

    private static func bumpImportsVersion(_ db: Database) throws {
        try db.execute(sql: "UPDATE versions SET version = version + 1 WHERE name = ?", arguments: [ResourceFamily.imports.rawValue])
    }

    private static func saveReport(_ report: ImportReport, _ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE imports SET status = ?, finished_at = ?, fetched = ?, inserted = ?, updated = ?, unchanged = ?, deleted = ?,
                    rejected = ?, error = ? WHERE id = ?
                """,
            arguments: [
                report.status.rawValue, report.finishedAt, report.fetched, report.inserted, report.updated, report.unchanged, report.deleted,
                report.rejected, report.error, report.id,
            ])
        try ImportRejections.save(report.rejections, of: report.id, db)
        try bumpImportsVersion(db)
    }

    /// A stored report, read by column name; a value the code cannot read is an error, never a default.
    private static func decodeReport(_ row: Row) throws -> ImportReport {
        let sourceText: String = row["source"]
        let statusText: String = row["status"]
        guard let source = FeedSource(rawValue: sourceText) else { throw UnreadableStoredValue(column: "imports.source", value: sourceText) }
        guard let status = ImportReport.Status(rawValue: statusText) else {
            throw UnreadableStoredValue(column: "imports.status", value: statusText)
        }
        var report = ImportReport(id: row["id"], source: source, status: status, startedAt: row["started_at"])
        report.finishedAt = row["finished_at"]
        report.fetched = row["fetched"]
        report.inserted = row["inserted"]
        report.updated = row["updated"]
        report.unchanged = row["unchanged"]
        report.deleted = row["deleted"]
        report.rejected = row["rejected"]
        report.error = row["error"]
        report.startedBy = row["started_by"]
        return report
    }
}
