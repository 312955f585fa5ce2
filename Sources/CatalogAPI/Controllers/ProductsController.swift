import CatalogModel
import CatalogStore
import Hummingbird

/// `GET /products`, `GET /products/{serial_code}`.
struct ProductsController<Context: RequestContext> {
    let store: CatalogStore
    let urls: RequestURLs

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.get("{serial_code}", use: get)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let query = QueryReader(request)
        let filter = ProductFilter(
            category: query.string("category"), brand: query.string("brand"), minimumPrice: try query.price("min_price"),
            maximumPrice: try query.price("max_price"), inStock: try query.bool("in_stock"), search: query.string("search"))
        let pageRequest = try query.pageRequest()
        let representations = Representations(base: urls.base(for: request))
        return try await JSONResponder.conditionalGET(request, store: store, baseURL: representations.base, family: "products", version: \.products) {
            let page = try await store.products(filter, page: pageRequest)
            return (representations.envelope(page, request: request, render: representations.product), page.versions)
        }
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        let serialCode = context.parameters.get("serial_code") ?? ""
        let representations = Representations(base: urls.base(for: request))
        return try await JSONResponder.conditionalGET(request, store: store, baseURL: representations.base, family: "products", version: \.products) {
            let (row, versions) = try await store.product(serialCode: serialCode)
            guard let row else { throw Problem.notFound("no product with serial_code '\(serialCode)'") }
            return (Representations.single { representations.product(row, into: &$0) }, versions)
        }
    }
}
