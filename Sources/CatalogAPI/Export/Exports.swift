import CatalogModel
import CatalogStore
import HTTPTypes
import Hummingbird
import Logging

/// Whole lists in one response, `?format=ndjson` or `csv` (`ExportFormat`): every row the list's filters, search and
/// ordering select, read at one snapshot of the store (`StoreSnapshot`) and sent as it is read, a batch at a time.
///
/// The `X-Catalog-Seq` header names the last change the snapshot holds: `/changes?since=` that seq, applied to the
/// export, gives the catalogue with no gap and no overlap, whatever was written during the download. A batch is read
/// once the one before has gone to the connection, so that a slow client slows its export and holds no more than a
/// batch on the server; the send timeout cuts one that takes nothing. An export past `maximumDuration`, or under way
/// when the server stops, is cut: its response ends without its last chunk, a truncated transfer to any client.
struct Exports: Sendable {
    /// How long an export may stream by default (`--export-max-duration`).
    static let defaultMaximumDuration: Duration = .seconds(600)
    /// Exports streamed at once by default (`--max-exports`): each holds a snapshot, on PostgreSQL a connection.
    static let defaultLimit = 4
    /// The most bytes written to the connection at a time, each write waiting for the one before: short bursts of
    /// writing on the connection's event loop, which other requests share.
    static let partBytes = 32 * 1024

    let store: any CatalogStore
    let notifier: ChangeNotifier
    let urls: RequestURLs
    let slots: RequestSlots
    let maximumDuration: Duration
    /// Rows read and sent at a time; nil for what the store's snapshot reads best (`StoreSnapshot.exportPageSize`).
    let batchSize: Int?

    /// The rows of one batch, and the cursor of the next one (nil after the last).
    typealias Batch = (lines: ExportLines, next: String?)

    /// The streamed export of a list: `read` reads a batch of `resource` at a snapshot (a page of the request, whose
    /// cursor is nil for the first) and renders it. The first batch is read before the answer's head, so that a bad
    /// ordering is a 400 like any list's; `cursor` and `page_size` are.
    func respond(
        _ request: Request, format: ExportFormat, resource: String, csvHeader: [String], logger: Logger,
        read: @escaping @Sendable (any StoreSnapshot, PageRequest, Representations) async throws -> Batch
    ) async throws -> Response {
        let query = QueryReader(request)
        for name in ["cursor", "page_size"] where query.string(name) != nil {
            throw Problem.badParameter(
                name, "\(name) does not apply to an export, which holds the whole list: /changes?since= its X-Catalog-Seq follows on from it")
        }
        guard let slot = slots.take() else {
            throw Problem(
                .serviceUnavailable, type: "too-many-exports",
                detail: "\(slots.limit) exports are streaming, the most this server runs at once (--max-exports); try again shortly",
                headers: [.retryAfter: "5"])
        }
        let representations = Representations(base: urls.base(for: request))
        let ordering = query.string("ordering")
        let snapshot = try await store.snapshot()
        let batchSize = batchSize ?? snapshot.exportPageSize
        let first: Batch
        do {
            first = try await read(snapshot, PageRequest(ordering: ordering, pageSize: batchSize), representations)
        } catch {
            await snapshot.close()
            throw error
        }
        let gzip = AcceptEncoding(request.headers).prefersGzip
        var headers = HTTPFields()
        headers[.contentType] = format.contentType
        headers[.cacheControl] = "no-store"
        headers[.catalogSeq] = String(snapshot.versions.lastSeq)
        headers[.contentDisposition] = "attachment; filename=\"\(resource).\(format.rawValue)\""
        GzipEncoding.setHeaders(&headers, gzip: gzip)
        let (notifier, maximumDuration) = (notifier, maximumDuration)
        let started = ContinuousClock.now
        var exportLogger = logger
        exportLogger[metadataKey: "export.resource"] = "\(resource)"
        exportLogger[metadataKey: "export.format"] = "\(format.rawValue)"
        exportLogger[metadataKey: "export.seq"] = "\(snapshot.versions.lastSeq)"
        let logger = exportLogger
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { withExtendedLifetime(slot) {} }
                var rows = 0
                func done(_ outcome: String, level: Logger.Level, _ message: String) async {
                    await snapshot.close()
                    let milliseconds = Int((ContinuousClock.now - started) / .milliseconds(1))
                    logger.log(
                        level: level, "\(message) (\(rows) rows in \(milliseconds) ms)",
                        metadata: ["export.outcome": "\(outcome)", "export.rows": "\(rows)", "export.duration_ms": "\(milliseconds)"])
                }
                do {
                    let compression = gzip ? try GzipStream() : nil
                    /// Sends `bytes`, compressed when asked, `partBytes` at a time; `last` ends the compressed stream.
                    func send(_ bytes: [UInt8], last: Bool = false) async throws {
                        var body = try compression.map { try $0.compress(bytes, last: last) } ?? ByteBuffer(bytes: bytes)
                        // An empty part would read as the end of a chunked body.
                        while let part = body.readSlice(length: min(Self.partBytes, body.readableBytes)), part.readableBytes > 0 {
                            try await writer.write(part)
                        }
                    }
                    var header = CSVWriter()
                    if format == .csv { header.row(csvHeader) }
                    try await send(header.bytes + first.lines.bytes)
                    rows = first.lines.count
                    var next = first.next
                    while let cursor = next {
                        if await notifier.isShuttingDown { throw ExportCut.stopping }
                        if ContinuousClock.now - started > maximumDuration { throw ExportCut.overran(maximumDuration) }
                        let batch = try await read(snapshot, PageRequest(ordering: ordering, pageSize: batchSize, cursor: cursor), representations)
                        try await send(batch.lines.bytes)
                        rows += batch.lines.count
                        next = batch.next
                    }
                    try await send([], last: true)
                    try await writer.finish(nil)
                } catch let cut as ExportCut {
                    await done("cut", level: .warning, "cut an export of \(resource): \(cut); the client sees a truncated transfer")
                    throw cut
                } catch {
                    await done("failed", level: .notice, "an export of \(resource) ended early: \(error)")
                    throw error
                }
                await done("complete", level: .info, "exported \(resource) as \(format.rawValue) at seq \(snapshot.versions.lastSeq)")
            })
    }

    /// The streamed export of a list whose rows a snapshot reads as values (films, categories): `read` reads a page of
    /// them, and each is written as JSON by `json` or as CSV by `csv`.
    func respond<Row: Sendable>(
        _ request: Request, format: ExportFormat, resource: String, csvHeader: [String], logger: Logger,
        read: @escaping @Sendable (any StoreSnapshot, PageRequest) async throws -> SnapshotPage<[Row]>,
        json: @escaping @Sendable (Representations) -> (Row, inout JSONWriter) -> Void,
        csv: @escaping @Sendable (Representations) -> (Row, inout CSVWriter) -> Void
    ) async throws -> Response {
        try await respond(request, format: format, resource: resource, csvHeader: csvHeader, logger: logger) { snapshot, page, representations in
            let batch = try await read(snapshot, page)
            let (writeJSON, writeCSV) = (json(representations), csv(representations))
            var lines = ExportLines(format: format, capacity: batch.rows.count * 1024)
            for row in batch.rows { lines.append(json: { writeJSON(row, &$0) }, csv: { writeCSV(row, &$0) }) }
            return (lines, batch.nextCursor)
        }
    }
}
