import CatalogModel
import CatalogStore
import Hummingbird
import Logging

/// `GET /products`, `GET /products/{serial_code}`, and the writes: `PUT`/`DELETE /products/{serial_code}`, `POST /products`.
struct ProductsController<Context: RequestContext> {
    let reads: ResourceReads
    let writes: WriteSupport
    let exports: Exports
    /// Whether mistyped words of a search that matches nothing are corrected, unless a request says `typos=0`.
    var correctsTypos = true

    private var store: any CatalogStore { reads.store }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.get("{serial_code}", use: get)
        group.put("{serial_code}", use: upsert)
        group.delete("{serial_code}", use: delete)
        group.post(use: batch)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let reads = listReads(request)
        let format = try ResponseFormat(request, lists: true)
        if format == .html { return try await ProductPages(reads: reads, correctsTypos: correctsTypos).list(request) }
        if let export = format.export { return try await exportList(request, format: export, logger: context.logger) }
        // Parameters are read only when the page is not cached: a cached page's URL was valid when it was rendered.
        return try await reads.list(
            request,
            fetch: { representations in
                let asked = try Self.listRequest(QueryReader(request), correctsTypos: correctsTypos)
                return try await FacetedProducts.read(
                    store, filter: asked.filter, page: asked.page, facets: asked.facets,
                    rows: RenderedProducts(representations: representations, pageSize: asked.page.pageSize))
            }, results: { _, page, writer in writer.json(page.products.json.bytes[...]) },
            trailer: { representations, page, writer in page.writeFacets(representations, request: request, into: &writer) })
    }

    /// The whole list (`Exports`): its search as typed, which an export never corrects.
    private func exportList(_ request: Request, format: ExportFormat, logger: Logger) async throws -> Response {
        let filter = try Self.filter(QueryReader(request), correctsTypos: false)
        return try await exports.respond(
            request, format: format, resource: "products", csvHeader: Representations.productCSVHeader, logger: logger
        ) { snapshot, page, representations in
            let rows = ExportedProducts(format: format, representations: representations, batchSize: page.pageSize)
            let batch = try await snapshot.products(filter, page: page, into: rows)
            return (batch.rows.lines, batch.nextCursor)
        }
    }

    /// The reads of a list. A search with a word that may be corrected is answered as corrected only once the store
    /// has read the vocabulary that corrects it (`CatalogStore.frequentTermsVersion`), seconds after start-up: the
    /// entity tags and cached pages of such searches tell the two apart, so that a page answered before is not served
    /// after. Other lists' tags never change with it.
    private func listReads(_ request: Request) -> ResourceReads {
        // Asked of every list before its cache is: the parameters are read whole only for a search that may be corrected.
        guard correctsTypos, store.frequentTermsVersion != nil, let search = request.uri.queryParameters["search"],
            SearchPlanner.mayBeCorrected(SearchQuery(String(search))), (try? QueryReader(request).bool("typos")) != false
        else { return reads }
        var reads = reads
        reads.name += "+typos"
        return reads
    }

    /// The filter, page and facets a list request asks for; a bad value is a 400 naming its parameter. Typos are
    /// corrected when the service does (`correctsTypos`) and the request does not say `typos=0`.
    static func listRequest(_ query: QueryReader, correctsTypos: Bool = true) throws -> (
        filter: ProductFilter, page: PageRequest, facets: (fields: [ProductFacetField], size: Int)?
    ) {
        (try filter(query, correctsTypos: correctsTypos), try query.pageRequest(), try query.facets())
    }

    /// The products a list request selects.
    static func filter(_ query: QueryReader, correctsTypos: Bool) throws -> ProductFilter {
        let typos = try query.bool("typos") ?? true
        return ProductFilter(
            category: query.string("category"), brand: query.string("brand"), minimumPrice: try query.price("min_price"),
            maximumPrice: try query.price("max_price"), inStock: try query.bool("in_stock"), search: try query.search(),
            correctsTypos: correctsTypos && typos)
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        let serialCode = try QueryReader.pathParameter("serial_code", context)
        if try ResponseFormat(request) == .html { return try await ProductPages(reads: reads).item(request, serialCode: serialCode) }
        return try await reads.item(
            request, notFound: "no product with serial_code '\(serialCode)'", fetch: { try await store.product(serialCode: serialCode) },
            render: { $0.product })
    }

    /// Creates or replaces one product; its source stays the feed's if it came from one.
    @Sendable func upsert(_ request: Request, context: Context) async throws -> Response {
        let writer = try await writes.authorize(request, .productsWrite, logger: context.logger)
        let serialCode = try QueryReader.pathParameter("serial_code", context)
        let representations = Representations(base: reads.urls.base(for: request))
        return try await writes.put(
            request, Product.self, keyField: "serial_code", pathKey: .string(serialCode), representations: representations,
            write: { try await store.upsertProducts([$0], author: writer.author) },
            reread: { try await store.product(serialCode: serialCode).0 }, gone: "product '\(serialCode)' was deleted meanwhile",
            render: { $0.product }, location: representations.productURL(serialCode))
    }

    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        let writer = try await writes.authorize(request, .productsWrite, logger: context.logger)
        let serialCode = try QueryReader.pathParameter("serial_code", context)
        return try await writes.delete(missing: "no product with serial_code '\(serialCode)'") {
            try await store.deleteProduct(serialCode: serialCode, author: writer.author)
        }
    }

    /// Upserts a JSON array (or a DummyJSON page) or NDJSON of products in one transaction; bad records are reported, the rest land.
    @Sendable func batch(_ request: Request, context: Context) async throws -> Response {
        let writer = try await writes.authorize(request, .productsWrite, logger: context.logger)
        let body = try await writes.body(request)
        let declared: ProductFeedFormat? = request.headers[.contentType]?.contains("ndjson") == true ? .ndjson : nil
        let document: ProductFeedDocument.Content
        do {
            document = try ProductFeedDocument.parse(body, format: declared)
        } catch {
            throw Problem(.badRequest, type: "malformed-body", detail: "the body is not a JSON array or NDJSON of products: \(error)")
        }
        let (products, rejections) = Product.collect(document.records)
        let counts = try await store.upsertProducts(products, author: writer.author)
        try await writes.committed()
        return JSONResponder.json(WriteSupport.batchReport(counts, rejections: rejections))
    }
}
