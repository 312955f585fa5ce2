import CatalogStore
import CatalogStoreKit
import GRDB
import Synchronization

/// The store at one moment (`StoreSnapshot`): a read transaction on a connection of its own (GRDB's
/// `DatabaseSnapshot`), which every page is read in, while the store's readers and its writer go on.
///
/// While it is open, a checkpoint cannot copy the WAL's frames past the snapshot's into the database file, nor start
/// the WAL again: the WAL grows by what is written meanwhile, and is checkpointed once the snapshot has closed.
final class SQLiteSnapshot: StoreSnapshot {
    /// The snapshot until `close()`: released then, it ends its transaction and closes its connection.
    private let open: Mutex<DatabaseSnapshot?>
    private let thread: LowPriorityThread
    let versions: StoreVersions
    /// Each page is read on the export's thread at a lower priority: short pages keep that work in short stretches,
    /// between which other requests are served. With 1,000 rows a page, the p99 of `/healthz` during an export of a
    /// million products was 3.9 to 4.3 times its own, with 100 1.6 to 1.8 times, the export a third longer
    /// (`scripts/bench --exports`).
    let exportPageSize = 100

    init(_ database: DatabasePool) throws {
        let snapshot = try database.makeSnapshot()
        versions = try snapshot.read { try StoreVersions.fetch($0) }
        open = Mutex(snapshot)
        // Started once nothing can fail: a snapshot that is not made has no thread to end.
        thread = LowPriorityThread(name: "catalogd snapshot")
    }

    /// Reads `body` in the snapshot's transaction, on the snapshot's own thread (`LowPriorityThread`): an export's reads
    /// take the time the requests leave.
    private func read<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        guard let snapshot = open.withLock({ $0 }) else { throw StoreUnavailable(store: "SQLite snapshot", reason: "the snapshot was closed") }
        // GRDB runs a synchronous read of a snapshot on the calling thread.
        return try await thread.run { try snapshot.read(body) }
    }

    func products<Rows: ProductPageRows>(_ filter: ProductFilter, page request: PageRequest, into rows: Rows) async throws -> SnapshotPage<Rows> {
        try await read { db in
            // A page without its count: the search as typed, along its index, from the cursor.
            let request = request.ranked(by: filter.searchQuery, in: .products)
            var rows = rows
            let (next, _, _, _) = try SQLiteCatalogStore.productListing.page(
                db, request: request, filters: SQLiteConditions(filter.query.conditions), search: filter.searchQuery, into: &rows
            ) { rows, _, statement in
                rows.append(ProductColumn.stored(statement))
            }
            return SnapshotPage(rows: rows, nextCursor: next)
        }
    }

    func films(_ filter: FilmFilter, page request: PageRequest) async throws -> SnapshotPage<[FilmRow]> {
        try await read { db in
            let page = try SQLiteCatalogStore.filmPage(filter, request, db)
            return SnapshotPage(rows: page.rows, nextCursor: page.next)
        }
    }

    func categories(_ filter: CategoryFilter, page request: PageRequest) async throws -> SnapshotPage<[CategoryRow]> {
        try await read { db in
            let page = try SQLiteCatalogStore.categoryPage(filter, request, db)
            return SnapshotPage(rows: page.rows, nextCursor: page.next)
        }
    }

    func close() async {
        open.withLock { $0 = nil }
        thread.finish()
    }

    deinit {
        thread.finish()
    }
}

extension SQLiteCatalogStore {
    public func snapshot() async throws -> any StoreSnapshot {
        try SQLiteSnapshot(database)
    }
}
