import CatalogModel
import CatalogStore
import CatalogStoreKit
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
/// The words of the products (`product_words`) are written at the end, in one statement in the key's order, and then
/// their counts in another, rather than by the insert triggers batch by batch, which it turns off for the transaction
/// alone (`ALTER TABLE` is transactional, its lock stops writers, never readers, and the store's role owns the tables
/// its migrations made): batch by batch, each batch's entries go into the key at places all over it. A first import
/// of 200,000 products took 35.7 s that way, 17.3 s without the trigger, and the words' one statement 11.6 s.
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
                for trigger in Self.wordTriggers { try await connection.query(trigger.disable, logger: log.logger) }
                var inserted = 0
                while true {
                    switch try StreamedListingStep(await channel.next(within: longestWait), longestWait: longestWait) {
                    case .batch(var batch):
                        // Batches that came while the last statement ran go in with this one: a statement's round
                        // trip and planning cost as much as a few hundred rows.
                        while batch.count < Self.largestStatement, let waiting = channel.waitingBatch() { batch += waiting }
                        try await PostgresProductWriter.insertNew(batch, source: source, log: &log)
                        inserted += batch.count
                    case .end(let end):
                        guard try await end.claim.isHeld(on: connection, logger: log.logger) else {
                            throw ImportClaimLost(source: end.report.source)
                        }
                        try await connection.query(Self.allWords, logger: log.logger)
                        try await connection.query(Self.allWordCounts, logger: log.logger)
                        for trigger in Self.wordTriggers { try await connection.query(trigger.enable, logger: log.logger) }
                        return try await PostgresCatalogStore.finishImport(
                            end.report, counts: WriteCounts(inserted: inserted), pages: end.pages, log: log)
                    }
                }
            }
        }
    }

    /// The insert triggers that the run's last statements do the work of: the products' words, and the words' counts,
    /// which the counts' trigger would have aggregated from a copy of all 25 million entries of a million products
    /// (13 s of the 64 s the entries took, where counting them from their key takes 2 s).
    static let wordTriggers: [(disable: PostgresQuery, enable: PostgresQuery)] = [
        ("ALTER TABLE products DISABLE TRIGGER products_words_insert", "ALTER TABLE products ENABLE TRIGGER products_words_insert"),
        (
            "ALTER TABLE product_words DISABLE TRIGGER product_words_counts_insert",
            "ALTER TABLE product_words ENABLE TRIGGER product_words_counts_insert"
        ),
    ]

    /// The entries of `product_words` of every product, in the key's order, as the insert trigger makes them.
    static let allWords = PostgresQuery(
        unsafeSQL: """
            INSERT INTO product_words (word, rank, product_order) \(PostgresSearchIndex.products.wordEntries(of: "products")) ORDER BY 1, 2, 3
            """)

    /// How many entries `product_words` holds of each word, added to the counts as the counts' insert trigger adds
    /// them: a word no product holds any longer keeps its count of 0.
    static let allWordCounts: PostgresQuery = """
        INSERT INTO product_word_counts (word, products) SELECT word, COUNT(*) FROM product_words GROUP BY word ORDER BY 1
        ON CONFLICT (word) DO UPDATE SET products = product_word_counts.products + excluded.products
        """

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
