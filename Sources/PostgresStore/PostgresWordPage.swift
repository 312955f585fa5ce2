import CatalogStore
import PostgresNIO

/// The first page of a ranked search of one word or one typed prefix without filters, from the table of each
/// product's words (`PostgresListing.MatchSource.words`), as a statement each connection prepares once: parsing it
/// took a third of its time at a million products. It runs on connections that plan it once for any word
/// (`PostgresGenericPlanPool`), which suits it: whatever the word, its runs are a range of the runs table's key
/// (`PostgresPlanTests` asks for that plan).
protocol PostgresWordPage: PostgresPreparedStatement where Row == PostgresRandomAccessRow {
    /// A search of the shape the statement reads: a word, or a typed prefix.
    static var shape: SearchQuery { get }
    var binds: PostgresBindings { get }
    init(binds: PostgresBindings)
}

extension PostgresWordPage {
    /// The statement `PostgresListing.matchesStatement` makes of a first page of `shape`, in the default order.
    static func statement(of listing: PostgresListing) -> String {
        let walk = try? RankedWalk(
            PageRequest(ordering: ListOrdering.relevance), ordering: listing.ordering, ranks: SearchFields.products.ranks.count)
        return walk.flatMap { listing.matchesStatement($0, search: shape, filters: PostgresConditions(), source: .words)?.sql } ?? ""
    }

    func makeBindings() -> PostgresBindings { binds }

    func decodeRow(_ row: PostgresRow) -> PostgresRandomAccessRow { row.makeRandomAccess() }
}
