import CatalogModel
import CatalogStore
import Hummingbird

/// `GET /films`, `GET /films/{episode_id}`, and the writes: `PUT`/`DELETE /films/{episode_id}`.
struct FilmsController<Context: RequestContext> {
    let store: any CatalogStore
    let urls: RequestURLs
    let writes: WriteSupport
    let token: BearerToken
    let reads: ResourceReads

    init(store: any CatalogStore, urls: RequestURLs, writes: WriteSupport, token: BearerToken, cache: ResponseCache) {
        self.store = store
        self.urls = urls
        self.writes = writes
        self.token = token
        reads = ResourceReads(store: store, urls: urls, family: .films, cache: cache)
    }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.get("{episode_id}", use: get)
        let writeRoutes = group.group().add(middleware: BearerTokenMiddleware(token: token))
        writeRoutes.put("{episode_id}", use: upsert)
        writeRoutes.delete("{episode_id}", use: delete)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        try await reads.list(
            request,
            fetch: {
                let query = QueryReader(request)
                let filter = FilmFilter(director: query.string("director"), search: try query.search())
                return try await store.films(filter, page: try query.pageRequest())
            }, render: { $0.film })
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        let episodeID = try Self.episodeID(context)
        return try await reads.item(
            request, notFound: "no film with episode_id \(episodeID)", fetch: { try await store.film(episodeID: episodeID) }, render: { $0.film })
    }

    /// Creates or replaces one film and its links; its source stays the feed's if it came from one.
    @Sendable func upsert(_ request: Request, context: Context) async throws -> Response {
        let episodeID = try Self.episodeID(context)
        let json = try await writes.objectBody(request, keyField: "episode_id", pathKey: .number(String(episodeID)))
        let film: Film
        do {
            film = try Film(json: json)
        } catch {
            throw WriteSupport.invalid(error)
        }
        let counts = try await store.upsertFilms([film], author: WriteSupport.author)
        try await writes.committed()
        let representations = Representations(base: urls.base(for: request))
        let (row, _) = try await store.film(episodeID: episodeID)
        guard let row else { throw Problem.notFound("film \(episodeID) was deleted meanwhile") }
        let body = Representations.single { representations.film(row, into: &$0) }
        return WriteSupport.upserted(counts, location: representations.filmURL(episodeID), body: body)
    }

    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        let episodeID = try Self.episodeID(context)
        guard try await store.deleteFilm(episodeID: episodeID, author: WriteSupport.author) else {
            throw Problem.notFound("no film with episode_id \(episodeID)")
        }
        try await writes.committed()
        return Response(status: .noContent)
    }

    static func episodeID(_ context: Context) throws(Problem) -> Int {
        try QueryReader.positiveInteger("episode_id", context, as: Int.self)
    }
}
