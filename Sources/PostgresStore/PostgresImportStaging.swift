import CatalogModel
import CatalogStore
import Logging
import PostgresNIO
import Synchronization

/// An import run's staged products: on the server every replica shares, loaded batch by batch with `COPY`, so that
/// a listing of any size keeps only 8 bytes a key in memory here.
struct PostgresImportStaging: ImportStaging {
    let staged = PostgresStagedProducts()
    /// The store the staged listing is applied to.
    let store: PostgresCatalogStore
    var client: PostgresPool { store.client }
    var logger: Logger { store.logger }
    /// The keys staged so far, by hash (8 bytes each, whatever their length): only a key that may have been seen
    /// before is looked for among the staged rows, where asking the server about every key of every batch made a
    /// lookup of each, for keys a listing seldom repeats; a key whose hash merely collides costs one lookup that finds
    /// nothing.
    private let stagedKeys = KeyHashes()

    init(store: PostgresCatalogStore) {
        self.store = store
    }

    /// Applies the staged listing in one recording transaction, while the claim is held.
    func complete(_ report: ImportReport, pages: [FeedPageState], under claim: any StoreClaim) async throws -> ImportReport {
        let staged = staged
        return try await store.writeImport(report, pages: pages, under: claim) { log, mode in
            try await PostgresProductWriter(mode: mode).apply(staged, log: &log)
        }
    }

    /// Stages a batch; a record whose key an earlier one had replaces it, and the earlier one is rejected.
    func stage(_ batch: [(index: Int, product: Product)]) async throws -> [Rejection] {
        var latest: [String: (index: Int, product: Product)] = [:]
        var first: [String: Int] = [:]
        var replaced: [(key: String, index: Int, by: Int)] = []
        for (index, product) in batch {
            if let earlier = latest[product.serialCode] { replaced.append((product.serialCode, earlier.index, index)) }
            latest[product.serialCode] = (index, product)
            first[product.serialCode] = first[product.serialCode] ?? index
        }
        let rows = latest.values.sorted { $0.index < $1.index }
        let seenBefore = stagedKeys.insert(rows.map(\.product.serialCode))
        let (staged, logger, searchAlphabet) = (staged, logger, store.searchAlphabet)
        let earlier = try await client.withOpenConnection { connection in
            let earlier = seenBefore.isEmpty ? [:] : try await staged.remove(keys: seenBefore, from: connection, logger: logger)
            let alphabet = try await searchAlphabet.alphabet(connection, logger: logger)
            try await staged.copy(rows, into: connection, alphabet: alphabet, logger: logger)
            return earlier
        }
        // A key staged by an earlier batch is replaced by its first record in this one.
        for (key, index) in earlier {
            guard let by = first[key] else { continue }
            replaced.append((key, index, by))
        }
        // In listing order, as the SQLite store reports them: each record that replaces an earlier one names it.
        return replaced.sorted { ($0.by, $0.index) < ($1.by, $1.index) }.map {
            Rejection(index: $0.index, key: $0.key, reason: "duplicate key: replaced by the record at index \($0.by)")
        }
    }

    /// Deletes the staged rows, from a task of its own: the run that calls it may have been cancelled.
    func discard() async {
        let (client, logger, staged) = (client, logger, staged)
        let deleted = await Task { try await client.withOpenConnection { try await staged.removeAll(from: $0, logger: logger) } }.result
        if case .failure(let error) = deleted { logger.warning("staged products of \(staged.id) not deleted: \(error)") }
    }

    /// Hashes of the keys that batches staged one after another add to.
    private final class KeyHashes: Sendable {
        private let hashes = Mutex<Set<UInt64>>([])

        /// Adds `keys` and answers those whose hash was there already.
        func insert(_ keys: [String]) -> [String] {
            hashes.withLock { hashes in
                keys.filter { key in
                    var hash = FNV1a()
                    hash.combine(key.utf8)
                    return !hashes.insert(hash.value).inserted
                }
            }
        }
    }
}
