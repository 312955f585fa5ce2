import CatalogModel
import CatalogStore
import Hummingbird

/// `GET /categories`, `GET /categories/{name}`; a category exists while it has products.
struct CategoriesController<Context: RequestContext> {
    let store: CatalogStore
    let urls: RequestURLs

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.get("{name}", use: get)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let query = QueryReader(request)
        let filter = CategoryFilter(search: query.string("search"))
        let pageRequest = try query.pageRequest()
        let representations = Representations(base: urls.base(for: request))
        return try await JSONResponder.conditionalGET(request, store: store, baseURL: representations.base, family: "categories", version: \.products) {
            let page = try await store.categories(filter, page: pageRequest)
            return (representations.envelope(page, request: request, render: representations.category), page.versions)
        }
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        let representations = Representations(base: urls.base(for: request))
        return try await JSONResponder.conditionalGET(request, store: store, baseURL: representations.base, family: "categories", version: \.products) {
            let (row, versions) = try await store.category(name: name)
            guard let row else { throw Problem.notFound("no category named '\(name)'") }
            return (Representations.single { representations.category(row, into: &$0) }, versions)
        }
    }
}
