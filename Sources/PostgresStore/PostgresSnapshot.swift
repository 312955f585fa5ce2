import CatalogStore
import CatalogStoreKit
import Logging
import PostgresNIO
import Synchronization

/// The store at one moment (`StoreSnapshot`): a `REPEATABLE READ, READ ONLY` transaction on a connection of its own,
/// outside the pools, so that an export that lasts minutes takes no connection the replica's requests wait for.
///
/// Its transaction takes no lock that a write or an import waits on; while it is open, vacuum keeps the row versions
/// it may still read. Each page is one statement in it, without the list's count.
final class PostgresSnapshot: StoreSnapshot {
    let versions: StoreVersions
    private let connection: PostgresConnection
    private let store: PostgresCatalogStore
    private let closed = Mutex(false)
    /// Where the parts of a keyset ordering are made into pages (`streamedPage`).
    private let thread = LowPriorityThread(name: "catalogd snapshot")
    /// The parts of the export the last page read, while it has more (`streamedPage`).
    private let exportParts = Mutex<PostgresExportParts?>(nil)
    /// A page is a slice of a part the server has packed already (`PostgresExportParts`), and each page costs the hops
    /// between the export's threads: with 250 rows a page, an export of a million products took 2.0–2.2 s where it
    /// took 2.2–2.35 s with 100 (2026-11-28).
    let exportPageSize = 250
    /// How many pages a part of an export holds: one statement of the server per 5,000 rows of 250-row pages.
    static let pagesPerPart = 20

    private init(connection: PostgresConnection, versions: StoreVersions, store: PostgresCatalogStore) {
        self.connection = connection
        self.versions = versions
        self.store = store
    }

    /// A snapshot on a new connection to `store`'s server; `StoreUnavailable` when none is made within its wait.
    static func open(_ store: PostgresCatalogStore) async throws -> PostgresSnapshot {
        let connection = try await PostgresCheckConnection.connect(to: store.location, within: store.connectionWait, logger: store.logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: PostgresTransactionKind.read.rawValue), logger: store.logger)
            // No parallel workers: a whole ordered list would be sorted by three processes and spilled to disk before
            // its first row; one walks the ordering's index, sends from the first row on, and leaves the server's
            // other cores to the replicas' requests.
            try await connection.query("SET LOCAL max_parallel_workers_per_gather = 0", logger: store.logger)
            let versions = try await PostgresCatalogStore.versions(connection, logger: store.logger)
            return PostgresSnapshot(connection: connection, versions: versions, store: store)
        } catch {
            try? await connection.close()
            throw StoreUnavailable(store: store.description, reason: PostgresFailure.describe(error))
        }
    }

    deinit {
        // A snapshot let go without `close()` (a response whose body never ran): its connection ends all the same.
        if !closed.withLock({ $0 }) { connection.close().whenComplete { _ in } }
        exportParts.withLock { $0.take() }?.stop()
        thread.finish()
    }

    func products<Rows: ProductPageRows>(_ filter: ProductFilter, page request: PageRequest, into rows: Rows) async throws -> SnapshotPage<Rows> {
        let query = filter.query
        let request = request.ranked(by: query.search, in: .products)
        guard try !store.listing(.products).isRanked(request, query.search) else {
            return try await page(.products, request, query, into: rows, append: PostgresRows.appendProduct)
        }
        // The search is one of the statement's conditions: a keyset ordering reads its matches by the ordering's index.
        return try await streamedPage(request, store.listing(.products).selecting(PostgresConditions(query.conditions), query.search), into: rows)
    }

    /// A page of products in a keyset ordering, from the parts of the export being read (`PostgresExportParts`): a
    /// first page starts them, and a page from the cursor the one before gave goes on with them, a statement for twenty
    /// pages where a page of its own costs one each. A page from any other cursor is read on its own.
    private func streamedPage<Rows: ProductPageRows>(
        _ request: PageRequest, _ conditions: PostgresConditions, into rows: Rows
    ) async throws -> SnapshotPage<Rows> {
        var parts: PostgresExportParts
        if request.cursor == nil {
            // A session runs one statement at a time: the parts under way are stopped before others start.
            exportParts.withLock { $0.take() }?.stop()
            let listing = store.listing(.products)
            let walk = KeysetWalk(try listing.ordering.resolve(request))
            guard let sortColumn = ProductColumn(rawValue: listing.sortExpression(walk.resolved.field)) else {
                throw InvalidQuery(parameter: "ordering", detail: "an export cannot be ordered by \(walk.resolved.field)")
            }
            let partSize = request.pageSize * Self.pagesPerPart
            let statements = PostgresExportParts.Statements(
                part: {
                    listing.partStatement(walk, conditions: conditions, after: $0, limit: partSize, aggregates: PostgresPackedProducts.aggregates)
                },
                partEnd: { listing.partEndStatement(walk, conditions: conditions, after: $0, limit: partSize) }, partSize: partSize,
                sortColumn: sortColumn)
            parts = PostgresExportParts(walk: walk, statements: statements, connection: connection, logger: store.logger)
        } else if let open = exportParts.withLock({ $0?.nextCursor == request.cursor ? $0.take() : nil }) {
            parts = open
        } else {
            // `page` stops the parts under way, whose rows are not this page's.
            return try await page(
                .products, request, ListQuery(conditions: [], search: nil, count: .rows), conditions: conditions, into: rows,
                append: PostgresRows.appendProduct)
        }
        do {
            if parts.part.map({ $0.isEnd(parts.offset) }) ?? true {
                parts.part = try await parts.next(store: store.description)
                parts.offset = PostgresPackedProducts.Offset()
            }
            guard let part = parts.part else { return SnapshotPage(rows: rows, nextCursor: nil) }
            // Made into the page's rows on the snapshot's own thread, at a lower priority than the requests' (as on SQLite).
            let (offset, pageSize) = (parts.offset, request.pageSize)
            let (rendered, next, last) = try await thread.run {
                var rows = rows
                let (next, last) = try part.read(from: offset, limit: pageSize) { rows.append($0) }
                return (rows, next, last)
            }
            parts.offset = next
            if part.isEnd(next) {
                // Whether another part follows tells the next cursor.
                parts.part = try await parts.next(store: store.description)
                parts.offset = PostgresPackedProducts.Offset()
            }
            parts.nextCursor =
                parts.walk.cursors(
                    firstRead: nil, lastRead: last, hasMoreInQueryDirection: parts.part != nil, hasRowsBehindCursor: false
                ).next
            if parts.nextCursor != nil { exportParts.withLock { $0 = parts } }
            return SnapshotPage(rows: rendered, nextCursor: parts.nextCursor)
        } catch {
            // Its reading task would wait for room in the channel for ever.
            parts.stop()
            throw error
        }
    }

    func films(_ filter: FilmFilter, page request: PageRequest) async throws -> SnapshotPage<[FilmRow]> {
        let query = filter.query
        var page = try await page(.films, request.ranked(by: query.search, in: .films), query, into: []) { rows, row in
            rows.append(try PostgresRows.film(row))
        }
        try await PostgresRows.attachLinks(to: &page.rows, connection, logger: store.logger)
        return page
    }

    func categories(_ filter: CategoryFilter, page request: PageRequest) async throws -> SnapshotPage<[CategoryRow]> {
        let search = filter.searchQuery
        return try await page(
            .categories, request.ranked(by: search, in: .categories), ListQuery(conditions: [], search: search, count: .rows), into: []
        ) {
            rows, row in rows.append(try PostgresRows.category(row))
        }
    }

    /// A page of `listing` in the snapshot's transaction, counted as nothing: an export walks the cursors, and never
    /// shows a count. Nothing runs on the store's pools, whose connections see other snapshots. `conditions` are the
    /// query's conditions when given already rendered.
    private func page<Rows: PageRows & Sendable>(
        _ listing: PostgresListing, _ request: PageRequest, _ query: ListQuery, conditions: PostgresConditions? = nil, into rows: Rows,
        append: (inout Rows, PostgresRandomAccessRow) throws -> Void
    ) async throws -> SnapshotPage<Rows> {
        // A statement streaming the rows of an earlier page holds the connection: it is let go first.
        exportParts.withLock { $0.take() }?.stop()
        var listing = store.listing(listing)
        listing.genericPlans = nil
        let page = try await listing.page(
            connection, request: request, filters: conditions ?? PostgresConditions(query.conditions), search: query.search, count: "SELECT 0",
            walkIn: .single, store: store.description, logger: store.logger, into: rows, append: append)
        return SnapshotPage(rows: page.rows, nextCursor: page.nextCursor)
    }

    /// Closes the connection, which ends the read-only transaction (and any statement still streaming) with it.
    func close() async {
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        thread.finish()
        exportParts.withLock { $0.take() }?.stop()
        try? await connection.close()
    }
}

extension PostgresCatalogStore {
    public func snapshot() async throws -> any StoreSnapshot {
        try await PostgresSnapshot.open(self)
    }
}
