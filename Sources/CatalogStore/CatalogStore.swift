import CatalogModel
import ServiceLifecycle

/// The catalogue's store, as the importer, the API and the command line use it: the only way to its data.
///
/// Each engine behind it (one folder beside this one) keeps the same promises:
/// - Every method is one transaction, and a read sees one committed state.
/// - Every write keeps the derived counts, the history and the resource versions true before it commits.
/// - A version changes exactly when its family's data changes; `seq` grows in commit order without gaps.
/// - An import's listing is applied whole or not at all, and unchanged rows are not written.
/// - A value the store cannot read back is an `UnreadableStoredValue`, never a default.
///
/// Whoever opens a store runs its connections beside their use, in structure (`withConnections`), and the
/// store is a service of the process (as Hummingbird's `PersistDriver` is): its one `run()` waits for graceful
/// shutdown and then closes it, which ends its connections. Used without a service group, it stays open until
/// `close()`.
/// Its `description` names it in logs and never holds a secret.
public protocol CatalogStore: Service, CustomStringConvertible {
    // MARK: Schema and health

    /// Identifiers of the applied migrations, oldest first.
    func appliedMigrations() async throws -> [String]
    /// Whether every migration this build knows has been applied.
    func isMigrated() async throws -> Bool
    /// Checks what the store promises (its engine's own integrity, every derived count against a recount,
    /// history continuity); one line per problem, empty when healthy.
    func check() async throws -> [String]
    /// Row counts and size, for `/metrics`.
    func statistics() async throws -> StoreStatistics
    /// Closes every connection; the store answers nothing afterwards.
    func close() async throws
    /// Runs what the store's connections need until `close()` or cancellation: a PostgreSQL pool, SQLite's merging
    /// of its search index beside the writes.
    func runConnections() async

    // MARK: Versions and commits

    /// The version of each family and the newest seq, read in one transaction.
    func versions() async throws -> StoreVersions
    /// The same as `versions()`, for the check every GET makes before anything else: it has to cost next to
    /// nothing, and reflects every commit made before it was asked, by any process.
    func currentVersions() async throws -> StoreVersions
    /// Calls `onCommit` with the newest seq when the watch starts and each time commits move it, whoever made them
    /// (another process, or another replica), until the task is cancelled. A failed check goes to `onError` and is
    /// tried again.
    func watchCommits(onError: @escaping @Sendable (any Error) -> Void, onCommit: @escaping @Sendable (Int64) async -> Void) async

    // MARK: Reads

    func films(_ filter: FilmFilter, page request: PageRequest) async throws -> Page<[FilmRow]>
    func film(episodeID: Int) async throws -> (FilmRow?, StoreVersions)
    /// A page of products, each handed to `rows` while the store is on its row.
    func products<Rows: ProductPageRows>(_ filter: ProductFilter, page request: PageRequest, into rows: Rows) async throws -> Page<Rows>
    func product(serialCode: String) async throws -> (ProductRow?, StoreVersions)
    /// The values of `fields` among the products `filter` selects, at most `size` of each, read in one snapshot.
    func productFacets(_ filter: ProductFilter, fields: [ProductFacetField], size: Int) async throws -> ProductFacets
    func categories(_ filter: CategoryFilter, page request: PageRequest) async throws -> Page<[CategoryRow]>
    /// The catalogue as it is now, held for reading whole while writes go on (`StoreSnapshot`): an export.
    func snapshot() async throws -> any StoreSnapshot
    /// Reads the rows of the words most products hold (`FrequentTerms`, chosen by `policy`) from one snapshot, and
    /// from then on counts and facets searches of them from those sets, made exact at each read's snapshot by the
    /// changes since them (`CurrentFrequentTerms`).
    func refreshFrequentTerms(_ policy: FrequentTermPolicy) async throws -> FrequentTerms
    /// Brings the sets reads use forward to the latest snapshot (`FrequentTerms.advanced`), reading from the engine the
    /// rows changed since them alone; nil, leaving them as they are, when there are none yet, when the history no
    /// longer holds every change since them, or when more than `FrequentTerms.advanceLimit` changes came since:
    /// then they are read whole again (`refreshFrequentTerms`).
    func advanceFrequentTerms() async throws -> FrequentTerms?
    /// The products version of the sets reads use (`refreshFrequentTerms`), nil before the first refresh.
    var frequentTermsVersion: Int64? { get }
    /// Whether reads asked for sets the installed ones do not hold (`FrequentTermShelf.wantsPrefixes`): bringing them
    /// forward adds them, though no product changed.
    var frequentTermsWanted: Bool { get }
    func category(name: String) async throws -> (CategoryRow?, StoreVersions)

    // MARK: Writes through the API

    /// Adds or updates products; existing rows keep their source, nothing else is touched.
    func upsertProducts(_ products: [Product], author: String) async throws -> WriteCounts
    /// Adds or updates films and their links.
    func upsertFilms(_ films: [Film], author: String) async throws -> WriteCounts
    /// Deletes one product; false when there was none.
    func deleteProduct(serialCode: String, author: String) async throws -> Bool
    /// Deletes one film and its links; false when there was none.
    func deleteFilm(episodeID: Int, author: String) async throws -> Bool

    // MARK: History

    /// Changes after `since`, oldest first, at most `limit` (up to `ChangeSlice.maximumLimit`), optionally of
    /// one entity; throws `HistoryGone` when `since` is older than the retained history.
    func changes(since: Int64, limit: Int, entity: Change.Entity?) async throws -> ChangeSlice
    /// The retained changes of one row, newest first, at most `limit`: its history as its page shows it.
    func changes(of entity: Change.Entity, key: String, limit: Int) async throws -> [Change]
    /// Deletes history recorded before `cutoff` (ISO 8601 UTC), always keeping the newest change; returns how many went.
    func pruneHistory(before cutoff: String) async throws -> Int

    // MARK: Imports

    /// Records the start of a run, and who started it through the API; the report it returns has status `running`.
    func beginImport(source: FeedSource, startedBy: String?) async throws -> ImportReport
    /// Takes the right to run an import of `source` for the whole deployment, or says who holds it. On success,
    /// the runs of `source` still marked `running` (their process stopped) are marked failed with a reason.
    func claimImport(of source: FeedSource) async throws -> ImportClaimOutcome
    /// When each source's last successful run finished (ISO 8601 UTC); a source that never succeeded is absent.
    func lastSuccessfulImports() async throws -> [FeedSource: String]
    /// The page states of the last successful run of `source`, by URL, for conditional requests: none once the
    /// source's family has been written since that run committed (through the API, by hand), so that the next run
    /// reads the listing whole and puts the feed's rows back.
    func feedPages(source: FeedSource) async throws -> [String: FeedPageState]
    /// A place for a listing too big to keep in memory while it is read; the store stays untouched until
    /// `completeImport` applies it.
    func makeStaging() async throws -> any ImportStaging
    /// A listing of `source` written while it is read, inside the run's one transaction, so that writing overlaps
    /// reading; nil when the engine writes a listing only once it is complete. It never reports a replaced record:
    /// a key it was given before fails it with `StreamedListingAbandoned` (as may an upstream that keeps it
    /// waiting too long), and the caller reads the listing again whole. `completeImport` applies it like any staged
    /// listing, and discarding it rolls back everything it wrote.
    func makeStreamedListing(of source: FeedSource) async throws -> (any ImportStaging)?
    /// Mirrors a complete listing, remembers its pages and finishes the report, in one transaction: readers see
    /// the previous state until the commit and never half of a run; nothing is applied unless `claim` (of the
    /// report's source) is still held.
    func completeImport(_ report: ImportReport, listing: CompletedListing, under claim: any StoreClaim) async throws -> ImportReport
    /// Records a failed run; the catalogue itself is untouched.
    func failImport(_ report: ImportReport) async throws
    func importReports(page request: PageRequest) async throws -> Page<[ImportReport]>
    func importReport(id: Int64) async throws -> (ImportReport?, StoreVersions)

    // MARK: Tokens
    //
    // Named writers, kept apart from the catalogue: no version moves and no change is recorded for them.

    /// Keeps a new token under the hash of its secret; false when a token of that name exists.
    func createToken(_ token: APIToken, secretHash: String) async throws -> Bool
    /// Every token, by name.
    func tokens() async throws -> [APIToken]
    /// The token whose secret hashes to `secretHash`, expired or not.
    func token(secretHash: String) async throws -> APIToken?
    /// Deletes a token, so that its secret is refused from then on; false when there was none.
    func revokeToken(name: String) async throws -> Bool
    /// Records when a token was last used.
    func recordTokenUse(name: String, at: String) async throws

    // MARK: Webhooks
    //
    // Subscriptions to the history, kept apart from the catalogue as tokens are.

    /// Keeps a new active subscription that delivers the changes after `since` (nil: after the newest seq, read in the
    /// same transaction); nil when `limit` subscriptions exist already. Throws `HistoryGone` when `since` is older
    /// than the retained history.
    func createWebhook(url: String, entities: [Change.Entity], secret: String, since: Int64?, limit: Int) async throws -> Webhook?
    /// Every subscription, by id.
    func webhooks() async throws -> [Webhook]
    func webhook(id: Int64) async throws -> Webhook?
    /// Deletes a subscription and its attempts; false when there was none.
    func deleteWebhook(id: Int64) async throws -> Bool
    /// Stores the delivery state of `webhook` (all but its id, url, entities, secret and creation time) and
    /// records `attempt`, when there is one, keeping each subscription's newest `WebhookAttempt.kept` attempts, in
    /// one transaction, and only if its delivered seq is still `expectedDeliveredSeq`, its state `expectedState`, and
    /// `claim` (the sender's, from `claimWebhookDelivery`), when given, still held; false, changing nothing, when it was
    /// deleted or moved meanwhile (resumed, or delivered by another replica), or the claim was lost.
    func updateWebhook(
        _ webhook: Webhook, expectedDeliveredSeq: Int64, expectedState: Webhook.State, attempt: WebhookAttempt?, under claim: (any StoreClaim)?
    ) async throws -> Bool
    /// A subscription's attempts, newest first, at most `limit`.
    func webhookAttempts(id: Int64, limit: Int) async throws -> [WebhookAttempt]
    /// Takes the right to send the webhooks' deliveries for the whole deployment; nil when another process holds it.
    func claimWebhookDelivery() async throws -> (any StoreClaim)?
}

extension CatalogStore {
    /// No streamed listings: a listing is written once it is complete.
    public func makeStreamedListing(of source: FeedSource) async throws -> (any ImportStaging)? { nil }

    /// Records the start of a run nobody asked for through the API (the scheduler's, the command line's).
    public func beginImport(source: FeedSource) async throws -> ImportReport {
        try await beginImport(source: source, startedBy: nil)
    }

    /// Changes after `since` of every entity.
    public func changes(since: Int64, limit: Int) async throws -> ChangeSlice {
        try await changes(since: since, limit: limit, entity: nil)
    }

    /// A page of products as rows.
    public func products(_ filter: ProductFilter, page request: PageRequest) async throws -> Page<[ProductRow]> {
        try await products(filter, page: request, into: [])
    }
}
