import CatalogModel
import CatalogStore
import CatalogStoreKit
import GRDB

/// A products listing written while it is still being read: the import's write transaction begins with the
/// first batch and takes each batch as it arrives, so that writing page k overlaps fetching and parsing the
/// pages after it. Readers see the previous state until the commit; discarding rolls everything back.
///
/// The transaction holds the store's writer: other writes wait until the run commits or rolls back. So that a
/// slow upstream never keeps them waiting long, the writer waits a bounded time for each batch (the reader hands
/// one over at least once per page); past that it rolls back, and the run reads the listing whole before writing
/// it (`StreamedListingAbandoned`).
final class SQLiteStreamedListing: ImportStaging {
    /// Batches waiting for the writer: enough to keep it busy while the next page is parsed.
    static let capacity = 4

    /// What the run gives once every page has arrived.
    struct Completion: Sendable {
        let report: ImportReport
        let pages: [FeedPageState]
    }

    private let transaction: StreamedListingTransaction<Completion>

    init(store: SQLiteCatalogStore, source: FeedSource, longestWait: Duration) {
        transaction = StreamedListingTransaction(capacity: Self.capacity) { channel in
            try await store.write { db in
                var log = try SQLiteChangeLog(db, author: source.author)
                var completion: Completion?
                let counts = try SQLiteProductWriter.apply(
                    batches: {
                        switch try StreamedListingStep(channel.receive(within: longestWait), longestWait: longestWait) {
                        case .batch(let batch): return batch
                        case .end(let end):
                            completion = end
                            return nil
                        }
                    }, mode: .mirror(source), db: db, log: &log)
                guard let completion else { throw StreamedListingTransaction<Completion>.Discarded() }
                return try SQLiteCatalogStore.finishImport(completion.report, counts: counts, pages: completion.pages, log: log, db)
            }
        }
    }

    /// Writes the batch in the run's transaction once the writer has room; never reports a replaced record.
    func stage(_ batch: [(index: Int, product: Product)]) async throws -> [Rejection] {
        try await transaction.send(batch.map(\.product))
        return []
    }

    /// Finishes the run's transaction with its report and pages, and commits it.
    /// Ends the run's transaction; the claim, a lock on a file, cannot be lost while this process lives.
    func complete(_ report: ImportReport, pages: [FeedPageState], under claim: any StoreClaim) async throws -> ImportReport {
        try await transaction.complete(Completion(report: report, pages: pages))
    }

    func discard() async {
        await transaction.discard()
    }
}

extension SQLiteCatalogStore {
    /// A products listing written as it is read (`SQLiteStreamedListing`); films are a handful of records, kept whole.
    public func makeStreamedListing(of source: FeedSource) async throws -> (any ImportStaging)? {
        source == .products ? SQLiteStreamedListing(store: self, source: source, longestWait: streamedListingWait) : nil
    }
}
