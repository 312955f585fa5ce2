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
    /// Where the rows of a keyset ordering are made into a page's (`streamedPage`).
    private let thread = LowPriorityThread(name: "catalogd snapshot")
    /// The statement whose rows the last page read, while it has more (`streamedPage`).
    private let orderedRows = Mutex<OrderedRows?>(nil)

    /// A statement of every row in a keyset ordering, being read: a task reads its rows as the connection delivers
    /// them, in parts of a page's size, and hands them over through a channel that holds one part, so that the
    /// statement waits while the export does (the driver stops reading the socket). The part read ahead and the cursor
    /// the page that goes on with it names are kept here.
    private struct OrderedRows: Sendable {
        /// Parts of rows; the end carries the statement's failure, if it failed.
        let channel = BatchChannel<[PostgresRow], (any Error)?>(capacity: 1)
        let walk: KeysetWalk
        var pending: [PostgresRow]?
        var nextCursor: String?

        init(_ rows: PostgresRowSequence, partSize: Int, walk: KeysetWalk) {
            self.walk = walk
            Task { [channel] in
                do {
                    var part: [PostgresRow] = []
                    part.reserveCapacity(partSize)
                    for try await row in rows {
                        part.append(row)
                        if part.count == partSize {
                            try await channel.send(part)
                            part = []
                            part.reserveCapacity(partSize)
                        }
                    }
                    if !part.isEmpty { try await channel.send(part) }
                    channel.finish(nil)
                } catch {
                    channel.finish(error)
                }
            }
        }

        /// The next part; empty after the last.
        func next(store: String) async throws -> [PostgresRow] {
            switch await channel.next(within: .seconds(600)) {
            case .batch(let part): return part
            case .end(nil): return []
            case .end(let failure?): throw failure
            case .abort, .timedOut: throw StoreUnavailable(store: store, reason: "the rows of an export stopped coming")
            }
        }

        /// Stops the reading task: its next part is refused.
        func stop() {
            channel.consumerFailed(CancellationError())
        }
    }

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
        orderedRows.withLock { $0.take() }?.stop()
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

    /// A page of products in a keyset ordering, from one statement of every row in that ordering whose rows are read as
    /// the connection delivers them (`OrderedRows`): a first page starts it, and a page from the cursor the one before
    /// gave goes on with it, a round trip and a plan for the whole export where a page of its own costs one each. A
    /// page from any other cursor is read on its own.
    private func streamedPage<Rows: ProductPageRows>(
        _ request: PageRequest, _ conditions: PostgresConditions, into rows: Rows
    ) async throws -> SnapshotPage<Rows> {
        var ordered: OrderedRows
        if request.cursor == nil {
            // The connection runs one statement at a time: one under way is stopped before another starts.
            orderedRows.withLock { $0.take() }?.stop()
            let statement = try store.listing(.products).orderedRowsStatement(request, conditions: conditions)
            let sequence = try await connection.query(PostgresQuery(unsafeSQL: statement.sql, binds: statement.binds), logger: store.logger)
            ordered = OrderedRows(sequence, partSize: request.pageSize, walk: statement.walk)
        } else if let open = orderedRows.withLock({ $0?.nextCursor == request.cursor ? $0.take() : nil }) {
            ordered = open
        } else {
            // `page` stops the statement under way, whose rows are not this page's.
            return try await page(
                .products, request, ListQuery(conditions: [], search: nil, count: .rows), conditions: conditions, into: rows,
                append: PostgresRows.appendProduct)
        }
        do {
            // The part after this one is read before this one is handed on: whether there is one tells the next cursor.
            var part = ordered.pending ?? []
            if ordered.pending == nil { part = try await ordered.next(store: store.description) }
            let following = part.isEmpty ? [] : try await ordered.next(store: store.description)
            // Made into the page's rows on the snapshot's own thread, at a lower priority than the requests' (as on SQLite).
            let rendered = try await thread.run { [part] in
                var rows = rows
                for row in part { try PostgresRows.appendProduct(to: &rows, row) }
                return rows
            }
            ordered.pending = following
            ordered.nextCursor = try ordered.walk.cursors(
                firstRead: nil,
                lastRead: part.last.map { $0.makeRandomAccess() }.map { (try .init($0["position_sort"]), try .init($0["position_key"])) },
                hasMoreInQueryDirection: !following.isEmpty, hasRowsBehindCursor: false
            ).next
            if ordered.nextCursor != nil { orderedRows.withLock { $0 = ordered } }
            return SnapshotPage(rows: rendered, nextCursor: ordered.nextCursor)
        } catch {
            // Its reading task would wait for room in the channel for ever.
            ordered.stop()
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
        orderedRows.withLock { $0.take() }?.stop()
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
        orderedRows.withLock { $0.take() }?.stop()
        try? await connection.close()
    }
}

extension PostgresCatalogStore {
    public func snapshot() async throws -> any StoreSnapshot {
        try await PostgresSnapshot.open(self)
    }
}
