import CatalogModel
import CatalogStore
import Hummingbird

/// The GET handlers of one resource family: conditional on its version, rendered for the request's base URL.
struct ResourceReads: Sendable {
    let store: any CatalogStore
    let urls: RequestURLs
    /// Names the resource in ETags.
    var name: String
    /// The version family whose version makes the ETag.
    let family: ResourceFamily
    let cache: ResponseCache
    /// Counts how the pages of searches are read.
    let searchPlans: SearchPlans?
    /// Whether the list is exported whole too (`Exports`): its JSON and its page link to the exports.
    let exported: Bool

    init(
        store: any CatalogStore, urls: RequestURLs, family: ResourceFamily, name: String? = nil, cache: ResponseCache,
        searchPlans: SearchPlans? = nil, exported: Bool = false
    ) {
        self.store = store
        self.urls = urls
        self.family = family
        self.name = name ?? family.rawValue
        self.cache = cache
        self.searchPlans = searchPlans
        self.exported = exported
    }

    /// A page of the list in the envelope.
    func list<Row: Sendable>(
        _ request: Request, fetch: () async throws -> Page<[Row]>, render: (Representations) -> (Row, inout JSONWriter) -> Void
    ) async throws -> Response {
        try await list(request, fetch: { _ in try await fetch() }) { representations, rows, writer in
            let write = render(representations)
            for row in rows { write(row, &writer) }
        }
    }

    /// A page of the list in the envelope, its rows made by `fetch` for the request's representations and
    /// written by `results`; `trailer` writes members after the results, such as facets.
    func list<Rows: Sendable>(
        _ request: Request, fetch: (Representations) async throws -> Page<Rows>,
        results: (Representations, Rows, inout JSONWriter) -> Void,
        trailer: (Representations, Rows, inout JSONWriter) -> Void = { _, _, _ in }
    ) async throws -> Response {
        let representations = Representations(base: urls.base(for: request))
        return try await JSONResponder.conditionalGET(
            request, store: store, cache: cache, baseURL: representations.base, name: name, family: family
        ) {
            let page = try await fetch(representations)
            searchPlans?.record(page.searchRead)
            let body = representations.envelope(
                page, request: request, exported: exported, results: { results(representations, $0, &$1) },
                trailer: { trailer(representations, $0, &$1) })
            return (body, page.versions)
        }
    }

    /// One row, or 404 with `notFound` as the detail.
    func item<Row>(
        _ request: Request, notFound: String, fetch: () async throws -> (Row?, StoreVersions),
        render: (Representations) -> (Row, inout JSONWriter) -> Void
    ) async throws -> Response {
        let representations = Representations(base: urls.base(for: request))
        return try await JSONResponder.conditionalGET(
            request, store: store, cache: cache, baseURL: representations.base, name: name, family: family
        ) {
            let (row, versions) = try await fetch()
            guard let row else { throw Problem.notFound(notFound) }
            let write = render(representations)
            return (Representations.single { write(row, &$0) }, versions)
        }
    }
}
