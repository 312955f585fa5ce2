import CatalogModel
import Hummingbird

/// `GET /`: links to every resource, like SWAPI's root.
struct RootController<Context: RequestContext> {
    static var resources: [String] { ["films", "products", "categories", "changes", "imports"] }

    let urls: RequestURLs

    func addRoutes(to router: Router<Context>) {
        router.get("/", use: root)
    }

    @Sendable func root(_ request: Request, context: Context) async throws -> Response {
        let base = urls.base(for: request)
        let bytes = Representations.single { writer in
            writer.objectStart()
            for resource in Self.resources {
                writer.key(resource)
                writer.string("\(base)/\(resource)/")
            }
            writer.objectEnd()
        }
        let tag = EntityTag(version: 0, family: "root", request: request, baseURL: base)
        if tag.match(request) != .none { return Response(status: .notModified, headers: [.eTag: tag.value]) }
        return JSONResponder.json(bytes, tag: tag)
    }
}
