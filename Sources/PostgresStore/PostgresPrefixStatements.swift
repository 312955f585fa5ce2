import CatalogStore

/// The two statements of a typed prefix's page of products (`PostgresListing.prefixPage`), prepared once per
/// connection (`PostgresPreparedRead`) and run on connections that plan them once for any prefix
/// (`PostgresGenericPlanPool`): parsing and planning the runs' statement took 1.1 ms of a page of 5 at a million
/// products. Whatever the prefix, its runs are a range of the runs table's key, and its rows are read by their row
/// numbers (`PostgresPlanTests` asks for those plans).
enum PostgresPrefixRuns: PostgresPreparedReadShape {
    static let name = "catalogd_prefix_runs"
    static let sql = PostgresListing.products.prefixRunsStatement(SearchQuery("prefix"), limit: 0)?.sql ?? ""
}

/// The rows of a typed prefix's page of products, by their row numbers (`PostgresPrefixRuns`).
enum PostgresPrefixRows: PostgresPreparedReadShape {
    static let name = "catalogd_prefix_rows"
    static let sql = PostgresListing.products.searchIndex.map(PostgresListing.products.rowsByOrderSQL) ?? ""
}
