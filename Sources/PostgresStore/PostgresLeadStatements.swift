import CatalogStore

/// The statements of a page of products read from a typed prefix's or a search's lead's runs
/// (`PostgresListing.leadPage`), prepared once per connection (`PostgresPreparedRead`) and run on connections that plan
/// them once for any value (`PostgresGenericPlanPool`): parsing and planning the runs' statement took 1.1 ms of a page
/// of 5 at a million products. Whatever the prefix or word, its runs are a range of the runs table's key, and its rows
/// are read by their row numbers (`PostgresPlanTests` asks for those plans).
enum PostgresPrefixRuns: PostgresPreparedReadShape {
    static let name = "catalogd_prefix_runs"
    static let sql = PostgresListing.products.leadRunsStatement(SearchQuery("prefix"), limit: 0)?.sql ?? ""
}

/// The runs of a whole word that leads a search of several parts (`PostgresPrefixRuns`).
enum PostgresLeadWordRuns: PostgresPreparedReadShape {
    static let name = "catalogd_lead_word_runs"
    static let sql = PostgresListing.products.leadRunsStatement(SearchQuery("word "), limit: 0)?.sql ?? ""
}

/// The rows of a page read from runs, a typed prefix's or a lead's, by their row numbers (`PostgresPrefixRuns`).
enum PostgresRowsByOrder: PostgresPreparedReadShape {
    static let name = "catalogd_rows_by_order"
    static let sql = PostgresListing.products.searchIndex.map(PostgresListing.products.rowsByOrderSQL) ?? ""
}
