import CatalogModel
import CatalogStore
import Foundation

/// How a feed's pages are asked for and followed: conditional requests, pages read ahead, and the limits on
/// where and how far `next` links lead.
extension FeedReader {
    /// The request for one page, conditional on what the previous run stored for it when `conditional`;
    /// run it now, or in a task that reads ahead.
    func request(_ location: String, page: Int, conditional: Bool) -> @Sendable () async throws -> UpstreamAnswer {
        let (client, deadline) = (client, deadline)
        let previous = conditional ? previousPages[location] : nil
        return { try await client.fetch(location, page: page, etag: previous?.etag, lastModified: previous?.lastModified, deadline: deadline) }
    }

    /// A page asked for ahead of its turn.
    struct Prefetch {
        let location: String
        let task: Task<UpstreamAnswer, any Error>

        func answer() async throws -> UpstreamAnswer {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        }

        /// Stops the request; a body that arrived anyway is deleted (it may be a spooled file).
        func abandon() {
            task.cancel()
            let task = task
            Task {
                if case .body(let body)? = try? await task.value { body.discard() }
            }
        }
    }

    func checkPageBudget(_ pageNumber: Int, location: String, visited: inout Set<String>) throws {
        guard visited.insert(location).inserted else {
            throw UpstreamError(url: location, page: pageNumber, cause: "the listing links back to a page it already gave (a loop)")
        }
        guard pageNumber <= client.policy.maximumPages else {
            throw UpstreamError(url: location, page: pageNumber, cause: "the listing has more than \(client.policy.maximumPages) pages")
        }
    }

    /// A `next` link must stay on the feed's own host: following it elsewhere would let a feed point the importer anywhere.
    func checkSameHost(_ next: String, as start: String, page: Int) throws {
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
