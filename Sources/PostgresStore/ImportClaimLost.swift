import CatalogModel

/// The connection that held an import's claim ended before the run was applied (the server restarted, or the
/// connection was cut): another replica may run the source now, so this run applies nothing.
struct ImportClaimLost: Error, CustomStringConvertible {
    let source: FeedSource

    var description: String {
        "the claim on the \(source.rawValue) import was lost with its connection to the database; nothing was applied"
    }
}
