import CatalogModel
import Hummingbird

/// `GET /`: links to every resource, like SWAPI's root; for a person, the overview page.
struct RootController<Context: RequestContext> {
    let urls: RequestURLs
    /// For the page people get (`HomePage`).
    let home: HomePage
    /// The top-level paths the resource controllers are added at, in the order the links are written.
    let resources: [String]

    func addRoutes(to router: Router<Context>) {
        router.get("/", use: root)
    }

    @Sendable func root(_ request: Request, context: Context) async throws -> Response {
        if try ResponseFormat(request) == .html { return try await home.render(request) }
        let base = urls.base(for: request)
        let bytes = Representations.single { writer in
            writer.objectStart()
            for resource in resources {
                writer.member(resource, "\(base)/\(resource)/")
            }
            writer.objectEnd()
        }
        let tag = EntityTag(version: 0, family: "root", request: request, baseURL: base)
        if tag.match(request) != .none { return Response(status: .notModified, headers: [.eTag: tag.value]) }
        return JSONResponder.json(bytes, tag: tag)
    }
}
