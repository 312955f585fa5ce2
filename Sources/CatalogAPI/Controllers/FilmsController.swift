import CatalogModel
import CatalogStore
import Hummingbird

/// `GET /films`, `GET /films/{episode_id}`.
struct FilmsController<Context: RequestContext> {
    let store: CatalogStore
    let urls: RequestURLs

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.get("{episode_id}", use: get)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let query = QueryReader(request)
        let filter = FilmFilter(director: query.string("director"), search: query.string("search"))
        let pageRequest = try query.pageRequest()
        let representations = Representations(base: urls.base(for: request))
        return try await JSONResponder.conditionalGET(request, store: store, baseURL: representations.base, family: "films", version: \.films) {
            let page = try await store.films(filter, page: pageRequest)
            return (representations.envelope(page, request: request, render: representations.film), page.versions)
        }
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        let episodeID = try Self.episodeID(context)
        let representations = Representations(base: urls.base(for: request))
        return try await JSONResponder.conditionalGET(request, store: store, baseURL: representations.base, family: "films", version: \.films) {
            let (row, versions) = try await store.film(episodeID: episodeID)
            guard let row else { throw Problem.notFound("no film with episode_id \(episodeID)") }
            return (Representations.single { representations.film(row, into: &$0) }, versions)
        }
    }

    static func episodeID(_ context: Context) throws(Problem) -> Int {
        let text = context.parameters.get("episode_id") ?? ""
        guard let episodeID = Int(text), episodeID > 0 else {
            throw Problem.badParameter("episode_id", "episode_id must be a positive integer, got '\(text)'")
        }
        return episodeID
    }
}
