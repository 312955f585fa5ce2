import CatalogModel
import CatalogStore
import Hummingbird

/// `GET /categories`, `GET /categories/{name}`; a category exists while it has products.
struct CategoriesController<Context: RequestContext> {
    let reads: ResourceReads
    let exports: Exports

    private var store: any CatalogStore { reads.store }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.get("{name}", use: get)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let format = try ResponseFormat(request, lists: true)
        if format == .html { return try await CategoryPages(reads: reads).list(request) }
        if let export = format.export {
            let filter = CategoryFilter(search: try QueryReader(request).search())
            return try await exports.respond(
                request, format: export, resource: "categories", csvHeader: Representations.categoryCSVHeader, logger: context.logger,
                read: { snapshot, page in try await snapshot.categories(filter, page: page) }, json: { $0.category }, csv: { $0.categoryCSV })
        }
        return try await reads.list(
            request,
            fetch: {
                let query = QueryReader(request)
                return try await store.categories(CategoryFilter(search: try query.search()), page: try query.pageRequest())
            }, render: { $0.category })
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        let name = try QueryReader.pathParameter("name", context)
        if try ResponseFormat(request) == .html { return try await CategoryPages(reads: reads).item(request, name: name) }
        return try await reads.item(
            request, notFound: "no category named '\(name)'", fetch: { try await store.category(name: name) }, render: { $0.category })
    }
}
