/// The catalogue as it was at one moment, read page by page while writers go on: what an export reads
/// (`CatalogStore.snapshot`). Each page is a list's page without its count, in the ordering and from the cursor its
/// request names, so that walking the cursors reads every row the filter selects once, as of `versions`.
///
/// A snapshot holds its engine's read transaction until `close()` (or until it is released): on SQLite the WAL cannot
/// be checkpointed past it meanwhile, and on PostgreSQL vacuum keeps the row versions it may read. A search is read as
/// typed: a snapshot corrects no typos.
public protocol StoreSnapshot: AnyObject, Sendable {
    /// The versions the snapshot holds: its rows hold every change up to `lastSeq`, and none after.
    var versions: StoreVersions { get }
    /// How many rows a page of an export reads by default: what suits the engine's way of reading them.
    var exportPageSize: Int { get }
    /// A page of products, each handed to `rows` while the store is on its row, and the cursor of the next page.
    func products<Rows: ProductPageRows>(_ filter: ProductFilter, page request: PageRequest, into rows: Rows) async throws -> SnapshotPage<Rows>
    func films(_ filter: FilmFilter, page request: PageRequest) async throws -> SnapshotPage<[FilmRow]>
    func categories(_ filter: CategoryFilter, page request: PageRequest) async throws -> SnapshotPage<[CategoryRow]>
    /// Ends the read transaction; the snapshot reads nothing afterwards.
    func close() async
}

/// A page read from a `StoreSnapshot`: its rows and the cursor of the next one, nil after the last.
public struct SnapshotPage<Rows: Sendable>: Sendable {
    public var rows: Rows
    public var nextCursor: String?

    public init(rows: Rows, nextCursor: String?) {
        self.rows = rows
        self.nextCursor = nextCursor
    }
}
