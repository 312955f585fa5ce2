import CatalogModel
import CatalogStore
import Foundation

extension FeedReader {
    /// Validates product records and numbers them across pages; hands them in batches to the store's streamed
    /// listing when it has one (the store writes them while the next pages are read), else keeps them in memory
    /// up to `inMemoryProductLimit`, then moves them to the store's staging and stages the rest in batches.
    struct Stager {
        let store: any CatalogStore
        /// The limits on a document and on an NDJSON line.
        let policy: UpstreamPolicy
        let inMemoryLimit: Int
        /// Whether to ask the store for a streamed listing at the first product.
        private var streams: Bool
        var nextIndex = 0
        var inMemory = KeyedCollector<Product>()
        private var destination = Destination.memory
        var batch: [(index: Int, product: Product)] = []

        /// Where the products go.
        private enum Destination {
            /// Kept here, up to `inMemoryLimit`.
            case memory
            /// Staged through the store in large batches, for a listing too big for memory.
            case staging(any ImportStaging)
            /// Written by the store while the next pages are read: handed over in smaller batches, and at the end of
            /// every page, so that the store's writer never waits longer than a page takes.
            case streamed(any ImportStaging)
        }

        /// The staging the products went to, when they left memory.
        var staging: (any ImportStaging)? {
            switch destination {
            case .memory: nil
            case .staging(let staging), .streamed(let staging): staging
            }
        }

        init(store: any CatalogStore, policy: UpstreamPolicy, inMemoryLimit: Int, streams: Bool) {
            self.store = store
            self.policy = policy
            self.inMemoryLimit = inMemoryLimit
            self.streams = streams
        }

        /// The records read, for the store to apply.
        var listing: CompletedListing.Records {
            staging.map { .stagedProducts($0) } ?? .products(inMemory.records)
        }

        /// Stages one document; returns how many records it held and the listing total it announced.
        mutating func stage(_ body: UpstreamBody, report: inout ImportReport) async throws -> (records: Int, total: Int?) {
            var first = true
            var isNDJSON = body.contentType.map(UpstreamClient.isNDJSON) ?? false
            var decoder = NDJSONDecoder(maximumLineBytes: policy.maximumLineBytes)
            var records = 0
            var total: Int?
            do {
                try await body.forEachChunk { chunk in
                    if first {
                        first = false
                        isNDJSON = isNDJSON || ProductFeedDocument.detectFormat(chunk) == .ndjson
                        if !isNDJSON {
                            // A JSON document has to be parsed whole.
                            let content = try ProductFeedDocument.parse(try body.bytes(limit: policy.maximumResponseBytes), format: .dummyJSON)
                            total = content.total
                            records = content.records.count
                            try await add(content.records, report: &report)
                            throw StopReading()
                        }
                    }
                    let lines: [Result<JSONValue, RecordError>]
                    do throws(FeedError) {
                        lines = try decoder.feed(chunk)
                    } catch {
                        throw FeedError("\(error.reason) (raise the limit with --upstream-max-line, CATALOG_UPSTREAM_MAX_LINE)")
                    }
                    records += lines.count
                    try await add(lines, report: &report)
                }
            } catch is StopReading {}
            if isNDJSON {
                let last = try decoder.finish()
                records += last.count
                try await add(last, report: &report)
            }
            if case .streamed = destination { try await flush(report: &report) }
            return (records, total)
        }

        private mutating func add(_ records: [Result<JSONValue, RecordError>], report: inout ImportReport) async throws {
            for record in records {
                let index = nextIndex
                nextIndex += 1
                report.fetched += 1
                switch Product.validate(record, at: index) {
                case .success(let product): try await add(product, index: index, report: &report)
                case .failure(let rejection): report.reject(rejection)
                }
            }
        }

        private mutating func add(_ product: Product, index: Int, report: inout ImportReport) async throws {
            if streams {
                streams = false
                if let streamed = try await store.makeStreamedListing(of: .products) { destination = .streamed(streamed) }
            }
            let batchSize: Int
            switch destination {
            case .memory:
                if let replaced = inMemory.add(product, index: index) { report.reject(replaced) }
                if inMemory.records.count > inMemoryLimit {
                    destination = .staging(try await store.makeStaging())
                    batch = inMemory.indexedRecords.map { ($0.index, $0.record) }
                    inMemory = KeyedCollector()
                    try await flush(report: &report)
                }
                return
            case .staging: batchSize = FeedReader.stagingBatchSize
            case .streamed: batchSize = FeedReader.streamedBatchSize
            }
            batch.append((index, product))
            if batch.count >= batchSize { try await flush(report: &report) }
        }

        mutating func flush(report: inout ImportReport) async throws {
            guard let staging, !batch.isEmpty else { return }
            for rejection in try await staging.stage(batch) { report.reject(rejection) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Ends `forEachChunk` early once a whole document has been read.
    struct StopReading: Error {}
}
