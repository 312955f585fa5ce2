import CatalogStore
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
    }

    func products<Rows: ProductPageRows>(_ filter: ProductFilter, page request: PageRequest, into rows: Rows) async throws -> SnapshotPage<Rows> {
        let query = filter.query
        return try await page(.products, request.ranked(by: query.search, in: .products), query, into: rows) { rows, row in
            try PostgresRows.withStoredProduct(row) { rows.append($0) }
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
    /// shows a count. Nothing runs on the store's pools, whose connections see other snapshots.
    private func page<Rows: PageRows & Sendable>(
        _ listing: PostgresListing, _ request: PageRequest, _ query: ListQuery, into rows: Rows,
        append: (inout Rows, PostgresRandomAccessRow) throws -> Void
    ) async throws -> SnapshotPage<Rows> {
        var listing = store.listing(listing)
        listing.genericPlans = nil
        let page = try await listing.page(
            connection, request: request, filters: PostgresConditions(query.conditions), search: query.search, count: "SELECT 0",
            walkIn: .single, store: store.description, logger: store.logger, into: rows, append: append)
        return SnapshotPage(rows: page.rows, nextCursor: page.nextCursor)
    }

    func close() async {
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        _ = try? await connection.query("COMMIT", logger: store.logger)
        try? await connection.close()
    }
}

extension PostgresCatalogStore {
    public func snapshot() async throws -> any StoreSnapshot {
        try await PostgresSnapshot.open(self)
    }
}
