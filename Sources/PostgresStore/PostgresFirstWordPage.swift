import CatalogStore
import PostgresNIO

/// The first page of a ranked search of one whole word without filters, from the table of each product's words
/// (`PostgresListing.MatchSource.words`), as a statement each connection prepares once (`PostgresPreparedRead`):
/// parsing it took a third of its time at a million products. It runs on connections that plan it once for any word
/// (`PostgresGenericPlanPool`), which suits it: whatever the word, its runs are a range of the runs table's key
/// (`PostgresPlanTests` asks for that plan).
enum PostgresFirstWordPage: PostgresPreparedReadShape {
    static let name = "catalogd_first_word_page"
    /// The statement `PostgresListing.matchesStatement` makes of a whole word's first page, in the default order.
    static let sql: String = {
        let walk = try? RankedWalk(
            PageRequest(ordering: ListOrdering.relevance), ordering: PostgresListing.products.ordering,
            ranks: SearchFields.products.ranks.count)
        return walk.flatMap {
            PostgresListing.products.matchesStatement($0, search: SearchQuery("word "), filters: PostgresConditions(), source: .words)?.sql
        } ?? ""
    }()
}
