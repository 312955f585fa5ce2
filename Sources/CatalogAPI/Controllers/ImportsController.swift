import CatalogImport
import CatalogModel
import CatalogStore
import Hummingbird

/// `GET /imports`, `GET /imports/{id}`, `POST /imports`.
struct ImportsController<Context: RequestContext> {
    /// `POST /imports` bodies are one small JSON object.
    static var maximumBodyBytes: Int { 64 * 1024 }

    let store: any CatalogStore
    let importer: Importer
    let authority: TokenAuthority
    let urls: RequestURLs
    let reads: ResourceReads

    init(store: any CatalogStore, importer: Importer, authority: TokenAuthority, urls: RequestURLs, cache: ResponseCache) {
        self.store = store
        self.importer = importer
        self.authority = authority
        self.urls = urls
        reads = ResourceReads(store: store, urls: urls, family: .imports, cache: cache)
    }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.get("{id}", use: get)
        group.post(use: start)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        if try ResponseFormat(request) == .html { return try await ImportPages(reads: reads).list(request) }
        return try await reads.list(
            request, fetch: { try await store.importReports(page: try QueryReader(request).pageRequest()) }, render: { $0.importReport })
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> Response {
        let id = try QueryReader.positiveInteger("id", context, as: Int64.self)
        if try ResponseFormat(request) == .html { return try await ImportPages(reads: reads).item(request, id: id) }
        return try await reads.item(
            request, notFound: "no import with id \(id)", fetch: { try await store.importReport(id: id) }, render: { $0.importReport })
    }

    /// Starts a run and answers `202 Accepted` with its report; `409` when that source is already running.
    @Sendable func start(_ request: Request, context: Context) async throws -> Response {
        let starter = try await authority.authorize(request, .importsRun)
        let body = try await BodyReader.collect(request, limit: Self.maximumBodyBytes)
        let json: JSONValue
        do {
            json = try JSONParser.parse(body)
        } catch {
            throw Problem(.badRequest, type: "malformed-body", detail: "the body is not JSON: \(error)")
        }
        guard case .string(let name)? = json["source"], let source = FeedSource(rawValue: name) else {
            throw Problem.badParameter("source", "the body must be {\"source\": \"films\"} or {\"source\": \"products\"}")
        }
        let representations = Representations(base: urls.base(for: request))
        do {
            let (report, _) = try await importer.start(source, startedBy: starter.author)
            context.logger.info(
                "import \(report.id) of \(source.rawValue) started by \(starter.author)",
                metadata: ["import.id": "\(report.id)", "import.source": "\(source.rawValue)", "token.name": "\(starter.name)"])
            let bytes = Representations.single { representations.importReport(report, into: &$0) }
            return JSONResponder.json(bytes, status: .accepted, headers: [.location: representations.importURL(report.id)])
        } catch ImportStartError.alreadyRunning(let id?) {
            throw Problem(
                .conflict, type: "import-running", detail: "an import of \(source.rawValue) is already running: \(representations.importURL(id))",
                extensions: [("import_id", .number(String(id)))])
        } catch ImportStartError.alreadyRunning(nil) {
            throw Problem(.conflict, type: "import-running", detail: "an import of \(source.rawValue) is starting in another process")
        } catch ImportStartError.notConfigured {
            throw Problem(
                .conflict, type: "source-not-configured",
                detail: "the \(source.rawValue) feed is disabled: set CATALOG_\(source.rawValue.uppercased())_URL to import it")
        } catch ImportStartError.shuttingDown {
            throw Problem(
                .serviceUnavailable, type: "shutting-down", detail: "the service is shutting down; start the import once it is back",
                headers: [.retryAfter: "5"])
        }
    }
}
