import CatalogModel
import CatalogStore
import Foundation

/// Reads a feed's complete listing, page by page, validating every record.
///
/// Pages the upstream answers 304 are not parsed: their keys come from the previous run's page state,
/// so that the mirror step still knows they are part of the listing.
struct FeedReader {
    let client: UpstreamClient
    let previousPages: [String: FeedPageState]
    let deadline: ContinuousClock.Instant
    /// Called after each page with the number of records read so far.
    let progress: @Sendable (_ pages: Int, _ records: Int) -> Void

    /// Records accumulated over the pages of one run.
    struct Accumulator<Record> {
        var records: [Record] = []
        var keys: [String] = []
        var positionOfKey: [String: Int] = [:]
        var unchangedKeys: Set<String> = []
        var pages: [FeedPageState] = []
        var nextIndex = 0

        /// Adds a valid record; a second record with the same key replaces the first, and the report says so.
        mutating func add(_ record: Record, key: String, index: Int, report: inout ImportReport) {
            if let earlier = positionOfKey[key] {
                report.reject(Rejection(index: earlier, key: key, reason: "duplicate key: replaced by the record at index \(index)"))
                records[earlier] = record
                keys[earlier] = key
            } else {
                positionOfKey[key] = records.count
                records.append(record)
                keys.append(key)
            }
        }
    }

    func readFilms(from start: String, report: inout ImportReport) async throws -> CompletedListing {
        var accumulator = Accumulator<Film>()
        var location: String? = start
        var visited: Set<String> = []
        var pageNumber = 0
        while let current = location {
            pageNumber += 1
            try checkPageBudget(pageNumber, location: current, visited: &visited)
            let previous = previousPages[current]
            switch try await client.fetch(current, page: pageNumber, etag: previous?.etag, lastModified: previous?.lastModified, deadline: deadline) {
            case .notModified:
                guard let previous else { throw UpstreamError(url: current, page: pageNumber, cause: "304 Not Modified to an unconditional request") }
                accumulate(notModified: previous, into: &accumulator, report: &report)
                location = previous.nextURL
            case .body(let body):
                let page: SWAPIPage
                do {
                    page = try SWAPIPage(body: body.bytes)
                } catch {
                    throw UpstreamError(url: current, page: pageNumber, cause: error.description)
                }
                var pageKeys: [String] = []
                for json in page.results {
                    let index = accumulator.nextIndex
                    accumulator.nextIndex += 1
                    report.fetched += 1
                    do {
                        let film = try Film(json: json)
                        let key = String(film.episodeID)
                        pageKeys.append(key)
                        accumulator.add(film, key: key, index: index, report: &report)
                    } catch {
                        report.reject(Rejection(index: index, key: Film.key(of: json), reason: error.reason))
                    }
                }
                if let next = page.next { try checkSameHost(next, as: start, page: pageNumber) }
                accumulator.pages.append(
                    FeedPageState(url: current, etag: body.etag, lastModified: body.lastModified, nextURL: page.next, total: page.count, keys: pageKeys))
                location = page.next
            }
            progress(pageNumber, accumulator.nextIndex)
        }
        return CompletedListing(records: .films(accumulator.records), unchangedKeys: accumulator.unchangedKeys, pages: accumulator.pages)
    }

    func readProducts(from start: String, pageSize: Int, report: inout ImportReport) async throws -> CompletedListing {
        var accumulator = Accumulator<Product>()
        var skip = 0
        var expectedTotal: Int?
        var pageNumber = 0
        var visited: Set<String> = []
        repeat {
            pageNumber += 1
            let current = Self.pagedLocation(start, limit: pageSize, skip: skip)
            try checkPageBudget(pageNumber, location: current, visited: &visited)
            let previous = previousPages[current]
            let pageTotal: Int?
            let pageCount: Int
            switch try await client.fetch(current, page: pageNumber, etag: previous?.etag, lastModified: previous?.lastModified, deadline: deadline) {
            case .notModified:
                guard let previous else { throw UpstreamError(url: current, page: pageNumber, cause: "304 Not Modified to an unconditional request") }
                accumulate(notModified: previous, into: &accumulator, report: &report)
                pageTotal = previous.total
                pageCount = previous.keys.count
            case .body(let body):
                let content: ProductFeedDocument.Content
                do {
                    let declared: ProductFeedFormat? = body.contentType?.contains("ndjson") == true ? .ndjson : nil
                    content = try ProductFeedDocument.parse(body.bytes, format: declared)
                } catch {
                    throw UpstreamError(url: current, page: pageNumber, cause: error.description)
                }
                var pageKeys: [String] = []
                for record in content.records {
                    let index = accumulator.nextIndex
                    accumulator.nextIndex += 1
                    report.fetched += 1
                    do {
                        let json = try record.get()
                        do {
                            let product = try Product(json: json)
                            pageKeys.append(product.serialCode)
                            accumulator.add(product, key: product.serialCode, index: index, report: &report)
                        } catch {
                            report.reject(Rejection(index: index, key: Product.key(of: json), reason: error.reason))
                        }
                    } catch {
                        report.reject(Rejection(index: index, key: nil, reason: error.reason))
                    }
                }
                accumulator.pages.append(
                    FeedPageState(url: current, etag: body.etag, lastModified: body.lastModified, nextURL: nil, total: content.total, keys: pageKeys))
                pageTotal = content.total
                pageCount = content.records.count
            }
            progress(pageNumber, accumulator.nextIndex)
            // Only the DummyJSON layout is paged; an array or NDJSON document is the whole listing.
            guard let total = pageTotal else { break }
            if let expectedTotal, expectedTotal != total {
                throw UpstreamError(url: current, page: pageNumber, cause: "the listing changed while it was read (total \(expectedTotal), now \(total))")
            }
            expectedTotal = total
            skip += pageCount
            if skip < total && pageCount == 0 {
                throw UpstreamError(url: current, page: pageNumber, cause: "page is empty but only \(skip) of \(total) products were read")
            }
        } while skip < (expectedTotal ?? 0)
        return CompletedListing(records: .products(accumulator.records), unchangedKeys: accumulator.unchangedKeys, pages: accumulator.pages)
    }

    private func accumulate<Record>(notModified page: FeedPageState, into accumulator: inout Accumulator<Record>, report: inout ImportReport) {
        accumulator.pages.append(page)
        accumulator.unchangedKeys.formUnion(page.keys)
        accumulator.nextIndex += page.keys.count
        report.fetched += page.keys.count
    }

    private func checkPageBudget(_ pageNumber: Int, location: String, visited: inout Set<String>) throws {
        guard visited.insert(location).inserted else {
            throw UpstreamError(url: location, page: pageNumber, cause: "the listing links back to a page it already gave (a loop)")
        }
        guard pageNumber <= client.policy.maximumPages else {
            throw UpstreamError(url: location, page: pageNumber, cause: "the listing has more than \(client.policy.maximumPages) pages")
        }
    }

    /// A `next` link must stay on the feed's own host: following it elsewhere would let a feed point the importer anywhere.
    private func checkSameHost(_ next: String, as start: String, page: Int) throws {
        let startURL = UpstreamClient.url(start)
        let nextURL = UpstreamClient.url(next)
        guard let nextURL, nextURL.scheme == startURL?.scheme, nextURL.host == startURL?.host, nextURL.port == startURL?.port else {
            throw UpstreamError(url: next, page: page + 1, cause: "next link leaves the feed's host (\(startURL?.host ?? start))")
        }
    }

    /// The URL of one DummyJSON page; `file://` URLs and paths are read whole, without a query.
    static func pagedLocation(_ start: String, limit: Int, skip: Int) -> String {
        guard start.hasPrefix("http://") || start.hasPrefix("https://"), var components = URLComponents(string: start) else { return start }
        var items = (components.queryItems ?? []).filter { $0.name != "limit" && $0.name != "skip" }
        items.append(URLQueryItem(name: "limit", value: String(limit)))
        items.append(URLQueryItem(name: "skip", value: String(skip)))
        components.queryItems = items
        return components.string ?? start
    }
}
