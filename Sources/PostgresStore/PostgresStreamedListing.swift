import CatalogModel
import CatalogStore
import CatalogStoreKit
import Logging
import PostgresNIO

/// A products listing written into the empty products table while it is still being read: the run's transaction
/// begins with the listing and inserts each batch as it arrives, so that PostgreSQL writes page k while the pages
/// after it are fetched and parsed. Readers see the previous catalogue until the commit; discarding rolls
/// everything back.
///
/// The transaction holds the history lock, so other writes of the catalogue wait until the run ends. As on SQLite,
/// it waits a bounded time for each batch, past which it rolls back and the run reads the listing whole before
/// writing it (`StreamedListingAbandoned`); a key given twice ends it the same way.
///
/// `products`, `product_word_runs` and `changes` are filled as copies of themselves that take their places before the
/// commit (`PostgresTableRebuild`), their indexes built after their rows: readers go on reading the empty tables and
/// the history as it was meanwhile.
final class PostgresStreamedListing: ImportStaging {
    /// Batches waiting for the transaction: enough to keep it busy while the next page is parsed.
    static let capacity = 16
    /// The most rows one statement inserts, about as many as the channel holds.
    static let largestStatement = 16_000

    /// What the run gives once every page has arrived.
    struct Completion: Sendable {
        let report: ImportReport
        let pages: [FeedPageState]
        let claim: PostgresClaim
    }

    private let transaction: StreamedListingTransaction<Completion>
    private let store: PostgresCatalogStore

    init(store: PostgresCatalogStore, source: FeedSource) {
        self.store = store
        let longestWait = store.streamedListingWait
        transaction = StreamedListingTransaction(capacity: Self.capacity) { channel in
            try await store.recordingTransaction(author: source.author) { connection, log in
                guard try await PostgresProductWriter.tableIsEmpty(connection, logger: log.logger) else {
                    throw StreamedListingAbandoned("products were written before the run's transaction began")
                }
                let products = try await PostgresTableRebuild.begin("products", connection, logger: log.logger)
                for trigger in Self.triggersOffForTheRows {
                    try await products.setTrigger(trigger, enabled: false, connection, logger: log.logger)
                }
                let history = try await PostgresTableRebuild.begin("changes", connection, logger: log.logger)
                let alphabet = try await store.searchAlphabet.alphabet(connection, logger: log.logger)
                var runs = PostgresWordRuns(firstOrder: try await Self.nextOrder(connection, logger: log.logger))
                var inserted = 0
                let (table, historyTable, logger) = (products.copy, history.copy, log.logger)
                // The batch encoded last is written while the next one is awaited and encoded: the server's `COPY`
                // of a batch took as long as the encoding of the next (0.3 s each for 18,000 rows), which had
                // waited for it, and the import's two cores were half idle. A `COPY` that fails (a key given twice
                // into a table filled in place) is told once the next batch is encoded, or as the wait for it ends:
                // the run rolls back either way.
                var encoded = PostgresProductWriter.EncodedProducts()
                while true {
                    let sending = encoded
                    async let sent: Void = PostgresProductWriter.copyNew(
                        sending, into: table, history: historyTable, connection, logger: logger)
                    switch try StreamedListingStep(await channel.next(within: longestWait), longestWait: longestWait) {
                    case .batch(var batch):
                        // Batches that came while the last one was encoded go in with it: a statement's round trip
                        // and planning cost as much as a few hundred rows.
                        while batch.count < Self.largestStatement, let waiting = channel.waitingBatch() { batch += waiting }
                        encoded = PostgresProductWriter.encodeNew(batch, source: source, alphabet: alphabet, runs: &runs, log: &log)
                        inserted += batch.count
                        try await sent
                    case .end(let end):
                        try await sent
                        guard try await end.claim.isHeld(on: connection, logger: log.logger) else {
                            throw ImportClaimLost(source: end.report.source)
                        }
                        let runsTable = try await Self.finish(products, history: history, runs: &runs, connection, logger: log.logger)
                        let report = try await PostgresCatalogStore.finishImport(
                            end.report, counts: WriteCounts(inserted: inserted), pages: end.pages, log: log)
                        try await PostgresTableRebuild.replace([products, runsTable, history], connection, logger: log.logger)
                        return report
                    }
                }
            }
        }
    }

    /// The products' insert triggers that are off while the rows go in, their work done once for all rows after them
    /// (`finish`): each is a statement of its own per `COPY`, over a copy of the batch's rows.
    static let triggersOffForTheRows = ["products_words_insert", "products_count_insert"]

    /// Builds the products' key and indexes, the history's, then the categories' counts, their words' runs and the
    /// words' counts; returns the runs' table, which takes its place with the products' and the history's last, just
    /// before the commit.
    ///
    /// The key is built after the rows, as the other indexes are: kept row by row, it took a third of the server's
    /// time for the rows (5 s of 14 for a million, against 0.9 s built after). A key given twice then fails the run
    /// once every row is in, rather than with the batch that gave it again. The history's rows go into a copy of it too,
    /// with the rows it had (the run holds the history lock, which every write of it takes): its four indexes kept row by
    /// row took 12 s for a million changes, against 4 s built after.
    ///
    /// The runs, gathered as the rows were written (`PostgresWordRuns`), go with one `COPY` into a
    /// `product_word_runs` rebuilt too, keyed after its rows, rather than by the products' insert trigger batch by
    /// batch, which is off for the run; their counts are written from them. The rows were numbered by the run, and
    /// the products' sequence goes on after the last.
    private static func finish(
        _ products: PostgresTableRebuild, history: PostgresTableRebuild, runs: inout PostgresWordRuns, _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> PostgresTableRebuild {
        let next = runs.nextOrder
        try await connection.query("SELECT setval(pg_get_serial_sequence('products', 'row_order'), \(next), false)", logger: logger)
        try await PostgresProductWriter.failingOnAKeyGivenTwice { try await products.buildIndexes(connection, logger: logger) }
        try await history.buildIndexes(connection, logger: logger)
        try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT categories_add(array_agg(category), array_agg(stock > 0)) FROM \(products.copy)"), logger: logger)
        try await runs.addServersWords(in: products.copy, connection, logger: logger)
        let runsTable = try await PostgresTableRebuild.begin("product_word_runs", connection, logger: logger)
        try await runs.write(into: runsTable.copy, connection, logger: logger)
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO product_word_counts (word, products)
                    SELECT word, SUM(cardinality(orders)) FROM \(runsTable.copy) GROUP BY word ORDER BY 1
                    ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products
                    """), logger: logger)
        try await runsTable.buildIndexes(connection, logger: logger)
        for trigger in triggersOffForTheRows { try await products.setTrigger(trigger, enabled: true, connection, logger: logger) }
        return runsTable
    }

    /// The order the products' sequence gives next, taken: the run numbers its rows from it.
    private static func nextOrder(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let query: PostgresQuery = "SELECT nextval(pg_get_serial_sequence('products', 'row_order'))"
        for try await order in try await connection.query(query, logger: logger).decode(Int64.self) { return order }
        throw StreamedListingAbandoned("the products' sequence gave no number")
    }

    /// Inserts the batch in the run's transaction once it has room; never reports a replaced record.
    func stage(_ batch: [(index: Int, product: Product)]) async throws -> [Rejection] {
        try await transaction.send(batch.map(\.product))
        return []
    }

    /// Finishes the run's transaction with its report and pages, and commits it while `claim` is held.
    func complete(_ report: ImportReport, pages: [FeedPageState], under claim: any StoreClaim) async throws -> ImportReport {
        guard let claim = claim as? PostgresClaim else { throw ForeignImportPart("import claim", store: store.description) }
        let completed = try await transaction.complete(Completion(report: report, pages: pages, claim: claim))
        await store.refreshStatistics(after: completed)
        return completed
    }

    func discard() async {
        await transaction.discard()
    }
}

extension PostgresCatalogStore {
    /// A products listing written as it is read (`PostgresStreamedListing`), when the products table is empty:
    /// into a table with rows, each listed row is compared with the stored one, which the staged listing's one
    /// statement does best. Films are a handful of records, kept whole.
    public func makeStreamedListing(of source: FeedSource) async throws -> (any ImportStaging)? {
        guard source == .products else { return nil }
        let logger = logger
        let empty = try await transaction(.single) { try await PostgresProductWriter.tableIsEmpty($0, logger: logger) }
        return empty ? PostgresStreamedListing(store: self, source: source) : nil
    }
}
