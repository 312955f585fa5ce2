import CatalogModel
import CatalogStore
import Foundation

/// Reads a feed's complete listing, page by page, validating every record.
///
/// The first pass sends each page's stored `ETag`/`Last-Modified`. When every page answers 304, or sends the
/// very bytes it sent last run (the same SHA-256), the listing is unchanged and nothing is parsed or written.
/// When some pages changed, an unchanged page's records are still part of the listing (the mirror step would
/// otherwise delete them), so the listing is read again without conditions: cheaper than keeping every page's
/// keys, and always right. The store gives no page states (and the pass is unconditional) once the source's rows
/// have been written by anything but its imports, so that its next run puts them back.
public struct FeedReader {
    let client: UpstreamClient
    let store: any CatalogStore
    let previousPages: [String: FeedPageState]
    let deadline: ContinuousClock.Instant
    let inMemoryProductLimit: Int
    /// Whether products go to the store's streamed listing, when it has one, as they are read.
    let streamsProducts: Bool
    /// Called after each page with the number of pages and records read so far.
    let progress: @Sendable (_ pages: Int, _ records: Int) -> Void

    /// DummyJSON pages asked for ahead of the one being read: enough to hide the upstream's latency,
    /// few enough to be polite to a public feed.
    static let pagesAhead = 4
    /// Products go to a streamed listing in batches of at most this many (and at the end of every page).
    static let streamedBatchSize = 1000
    /// Products go to a store's staging in batches of this many: each batch is a round trip to a PostgreSQL
    /// server, and batches of 1,000 made staging cost more than the import's writing.
    static let stagingBatchSize = 10_000
    /// Listings read whole (not streamed to the store) up to this many products (about 50 MB) are kept in memory;
    /// longer ones go to the store's staging, so that a listing of any length is read with bounded memory.
    public static let defaultInMemoryProductLimit = 100_000

    /// What one pass over the listing found.
    enum Pass {
        case complete(CompletedListing)
        /// Every page answered 304.
        case unchanged(CompletedListing)
        /// Some pages answered 304 and some did not: read again unconditionally.
        case mixed
    }

    func readFilms(from start: String, report: inout ImportReport) async throws -> CompletedListing {
        try await readTwice(report: &report) { conditional, report in
            try await filmPass(from: start, conditional: conditional, report: &report)
        }
    }

    func readProducts(from start: String, pageSize: Int, report: inout ImportReport) async throws -> CompletedListing {
        try await readTwice(report: &report) { conditional, report in
            try await productPass(from: start, pageSize: pageSize, conditional: conditional, report: &report)
        }
    }

    private func readTwice(
        report: inout ImportReport, pass: (_ conditional: Bool, _ report: inout ImportReport) async throws -> Pass
    ) async throws -> CompletedListing {
        let initial = report
        switch try await pass(!previousPages.isEmpty, &report) {
        case .complete(let listing), .unchanged(let listing):
            return listing
        case .mixed:
            report = initial
            guard case .complete(let listing) = try await pass(false, &report) else {
                throw UpstreamError(url: "", page: 0, cause: "the upstream answered 304 to an unconditional request")
            }
            return listing
        }
    }

    /// Tracks whether a pass has seen 304s, bodies, or both.
    private struct Freshness {
        var notModified = 0
        var changed = 0
        var isMixed: Bool { notModified > 0 && changed > 0 }
    }

    private func filmPass(from start: String, conditional: Bool, report: inout ImportReport) async throws -> Pass {
        var films = KeyedCollector<Film>()
        var pages: [FeedPageState] = []
        var freshness = Freshness()
        var location: String? = start
        var visited: Set<String> = []
        var pageNumber = 0
        var nextIndex = 0
        while let current = location {
            pageNumber += 1
            try checkPageBudget(pageNumber, location: current, visited: &visited)
            let previous = conditional ? previousPages[current] : nil
            switch sameAsLastRun(try await request(current, page: pageNumber, conditional: conditional)(), at: current, conditional: conditional) {
            case .notModified:
                freshness.notModified += 1
                guard let previous, !freshness.isMixed else { return .mixed }
                pages.append(previous)
                nextIndex += previous.records
                report.fetched += previous.records
                location = previous.nextURL
            case .body(let body):
                freshness.changed += 1
                defer { body.discard() }
                if freshness.isMixed { return .mixed }
                let page: SWAPIPage
                do {
                    page = try SWAPIPage(body: try body.bytes(limit: client.policy.maximumResponseBytes))
                } catch let error as FeedError {
                    throw UpstreamError(url: current, page: pageNumber, cause: error.description)
                }
                for json in page.results {
                    let index = nextIndex
                    nextIndex += 1
                    report.fetched += 1
                    switch Film.validate(.success(json), at: index) {
                    case .success(let film):
                        if let replaced = films.add(film, index: index) { report.reject(replaced) }
                    case .failure(let rejection):
                        report.reject(rejection)
                    }
                }
                if let next = page.next { try checkSameHost(next, as: start, page: pageNumber) }
                pages.append(
                    FeedPageState(
                        url: current, etag: body.etag, lastModified: body.lastModified, nextURL: page.next, total: page.count,
                        records: page.results.count, digest: Self.pageDigest(body)))
                location = page.next
            }
            progress(pageNumber, nextIndex)
        }
        if freshness.changed == 0 {
            return .unchanged(CompletedListing(records: .unchanged(nextIndex), pages: pages))
        }
        return .complete(CompletedListing(records: .films(films.records), pages: pages))
    }

    private func productPass(from start: String, pageSize: Int, conditional: Bool, report: inout ImportReport) async throws -> Pass {
        var stager = Stager(store: store, policy: client.policy, inMemoryLimit: inMemoryProductLimit, streams: streamsProducts)
        do {
            let pass = try await productPass(from: start, pageSize: pageSize, conditional: conditional, stager: &stager, report: &report)
            if case .complete = pass { return pass }
            await stager.staging?.discard()
            return pass
        } catch {
            await stager.staging?.discard()
            throw error
        }
    }

    private func productPass(
        from start: String, pageSize: Int, conditional: Bool, stager: inout Stager, report: inout ImportReport
    ) async throws -> Pass {
        var pages: [FeedPageState] = []
        var freshness = Freshness()
        var skip = 0
        var expectedTotal: Int?
        var pageNumber = 0
        var visited: Set<String> = []
        var ahead: [Prefetch] = []
        defer { ahead.forEach { $0.abandon() } }
        repeat {
            pageNumber += 1
            let current = Self.pagedLocation(start, limit: pageSize, skip: skip)
            try checkPageBudget(pageNumber, location: current, visited: &visited)
            let answer: UpstreamAnswer
            if let next = ahead.first, next.location == current {
                ahead.removeFirst()
                answer = try await next.answer()
            } else {
                ahead.forEach { $0.abandon() }
                ahead.removeAll()
                answer = try await request(current, page: pageNumber, conditional: conditional)()
            }
            // The next pages, asked for while this one is parsed: the upstream's latency and the parsing
            // overlap. The guess is that every page is as long as asked; a shorter page moves the next skip,
            // and the guesses are thrown away.
            if let expectedTotal {
                var nextSkip = skip + pageSize * (ahead.count + 1)
                while ahead.count < Self.pagesAhead, nextSkip < expectedTotal {
                    let next = Self.pagedLocation(start, limit: pageSize, skip: nextSkip)
                    let fetchNext = request(next, page: pageNumber + ahead.count + 1, conditional: conditional)
                    ahead.append(Prefetch(location: next, task: Task { try await fetchNext() }))
                    nextSkip += pageSize
                }
            }
            let page: FeedPageState
            switch sameAsLastRun(answer, at: current, conditional: conditional) {
            case .notModified:
                freshness.notModified += 1
                guard let previous = conditional ? previousPages[current] : nil, !freshness.isMixed else { return .mixed }
                page = previous
                stager.nextIndex += previous.records
                report.fetched += previous.records
            case .body(let body):
                freshness.changed += 1
                defer { body.discard() }
                if freshness.isMixed { return .mixed }
                do {
                    let (records, total) = try await stager.stage(body, report: &report)
                    page = FeedPageState(
                        url: current, etag: body.etag, lastModified: body.lastModified, nextURL: nil, total: total, records: records,
                        digest: Self.pageDigest(body))
                } catch let error as FeedError {
                    throw UpstreamError(url: current, page: pageNumber, cause: error.description)
                }
            }
            pages.append(page)
            progress(pageNumber, stager.nextIndex)
            // Only the DummyJSON layout is paged; an array or NDJSON document is the whole listing.
            guard let total = page.total else { break }
            if let expectedTotal, expectedTotal != total {
                throw UpstreamError(
                    url: current, page: pageNumber, cause: "the listing changed while it was read (total \(expectedTotal), now \(total))")
            }
            expectedTotal = total
            skip += page.records
            if skip < total && page.records == 0 {
                throw UpstreamError(url: current, page: pageNumber, cause: "page is empty but only \(skip) of \(total) products were read")
            }
        } while skip < (expectedTotal ?? 0)
        try await stager.flush(report: &report)
        if freshness.changed == 0 {
            return .unchanged(CompletedListing(records: .unchanged(stager.nextIndex), pages: pages))
        }
        return .complete(CompletedListing(records: stager.listing, pages: pages))
    }

    /// A body with the digest the page had in the last run is that page again: it counts as a 304 would, unparsed.
    private func sameAsLastRun(_ answer: UpstreamAnswer, at location: String, conditional: Bool) -> UpstreamAnswer {
        guard conditional, case .body(let body) = answer, let digest = Self.pageDigest(body), digest == previousPages[location]?.digest else {
            return answer
        }
        body.discard()
        return .notModified
    }

    /// Bumped when records are read differently (validation, field names): pages remembered under an earlier
    /// revision no longer match, so the first run of such a release reads every listing whole.
    static let readingRevision = 1

    /// What a page's bytes are remembered by: their SHA-256 under the reading revision.
    static func pageDigest(_ body: UpstreamBody) -> String? {
        body.digest.map { "r\(readingRevision):\($0)" }
    }

}
