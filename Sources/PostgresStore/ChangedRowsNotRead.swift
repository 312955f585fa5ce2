import CatalogStore

/// A read asked for the changed rows that a search matches which it had not read beforehand
/// (`PostgresCurrentFrequentTerms`): a fault of the read's code, never of its input.
struct ChangedRowsNotRead: Error, CustomStringConvertible {
    let search: SearchQuery
    var description: String { "the changed rows' matches of \(search) were not read with the read's others" }
}
