import CatalogModel

/// The products of one import run on their way into the store, for a listing too big to keep in memory.
///
/// The store stays untouched while a run stages: `completeImport` applies the staged listing in one
/// transaction once every page has arrived, and a failed run just discards it. A later record with the same
/// key replaces an earlier one (the last wins), and the caller is told so.
public protocol ImportStaging: Sendable {
    /// Stages validated products with their positions in the listing; returns a rejection for each earlier
    /// record that one of these replaces.
    func stage(_ batch: [(index: Int, product: Product)]) async throws -> [Rejection]
    /// Applies what was staged as the complete listing of `report`'s source, records `pages` for the next run's
    /// conditional requests and finishes the report, in one transaction, as `CatalogStore.completeImport` does with
    /// a listing held in memory: nothing is applied unless `claim` is still held. Each engine's staging applies
    /// itself, so that no engine has to ask which kind of staging it was given.
    func complete(_ report: ImportReport, pages: [FeedPageState], under claim: any StoreClaim) async throws -> ImportReport
    /// Drops everything staged; called once the run has been applied or has failed, even from a cancelled task.
    func discard() async
}
