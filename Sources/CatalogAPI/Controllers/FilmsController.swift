import CatalogModel
import CatalogStore
import Hummingbird

/// `GET /films`, `GET /films/{episode_id}`, and the writes: `PUT`/`DELETE /films/{episode_id}`.
struct FilmsController<Context: RequestContext> {
    let reads: ResourceReads
    let writes: WriteSupport
    let exports: Exports

    private var store: any CatalogStore { reads.store }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.get("{episode_id}", use: get)
        group.put("{episode_id}", use: upsert)
        group.delete("{episode_id}", use: delete)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let format = try ResponseFormat(request, lists: true)
        if format == .html { return try await FilmPages(reads: reads).list(request) }
        if let export = format.export {
            let filter = try Self.filter(QueryReader(request))
            return try await exports.respond(
                request, format: export, resource: "films", csvHeader: Representations.filmCSVHeader, logger: context.logger,
                read: { snapshot, page in try await snapshot.films(filter, page: page) }, json: { $0.film }, csv: { $0.filmCSV })
        }
        return try await reads.list(
            request,
            fetch: {
                let query = QueryReader(request)
                return try await store.films(try Self.filter(query), page: try query.pageRequest())
            }, render: { $0.film })
    }

    /// The filter a list request asks for; a bad value is a 400 naming its parameter.
    static func filter(_ query: QueryReader) throws -> FilmFilter {
        FilmFilter(director: query.string("director"), search: try query.search())
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        let episodeID = try Self.episodeID(context)
        if try ResponseFormat(request) == .html { return try await FilmPages(reads: reads).item(request, episodeID: episodeID) }
        return try await reads.item(
            request, notFound: "no film with episode_id \(episodeID)", fetch: { try await store.film(episodeID: episodeID) }, render: { $0.film })
    }

    /// Creates or replaces one film and its links; its source stays the feed's if it came from one.
    @Sendable func upsert(_ request: Request, context: Context) async throws -> Response {
        let writer = try await writes.authorize(request, .filmsWrite, logger: context.logger)
        let episodeID = try Self.episodeID(context)
        let representations = Representations(base: reads.urls.base(for: request))
        return try await writes.put(
            request, Film.self, keyField: "episode_id", pathKey: .number(String(episodeID)), representations: representations,
            write: { try await store.upsertFilms([$0], author: writer.author) }, reread: { try await store.film(episodeID: episodeID).0 },
            gone: "film \(episodeID) was deleted meanwhile", render: { $0.film }, location: representations.filmURL(episodeID))
    }

    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        let writer = try await writes.authorize(request, .filmsWrite, logger: context.logger)
        let episodeID = try Self.episodeID(context)
        return try await writes.delete(missing: "no film with episode_id \(episodeID)") {
            try await store.deleteFilm(episodeID: episodeID, author: writer.author)
        }
    }

    static func episodeID(_ context: Context) throws(Problem) -> Int {
        let episodeID = try QueryReader.positiveInteger("episode_id", context, as: Int.self)
        guard episodeID <= Film.maximumEpisodeID else {
            throw Problem.badParameter("episode_id", "episode_id must be at most \(Film.maximumEpisodeID), got \(episodeID)")
        }
        return episodeID
    }
}
