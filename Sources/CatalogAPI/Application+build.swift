import CatalogImport
import CatalogModel
import CatalogStore
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// Everything `catalogd serve` can be told; every default works on a laptop (see docs/configuration.md).
public struct ServiceConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var feeds = FeedLocations()
    /// nil turns the scheduler off.
    public var importInterval: Duration? = .seconds(15 * 60)
    /// The bootstrap secret, with every scope (`token:bootstrap` in the history); nil: only stored tokens write.
    public var apiToken: String?
    /// Every read but the probes and the metrics needs a token with the `read` scope.
    public var requiresReadToken = false
    /// The secret `/metrics` needs (a scraper's own, apart from the writers' tokens); nil: `/metrics` is open.
    public var metricsToken: String?
    public var historyRetention: Duration = .seconds(30 * 24 * 3600)
    public var maximumBodyBytes = 32 * 1024 * 1024
    /// Bytes of encoded responses kept for repeated reads of unchanged data; 0 turns the cache off.
    public var responseCacheBytes = ResponseCache.defaultByteBudget
    /// A connection with no request in progress (idle, or still sending a request head) is closed after this long;
    /// so is one whose request body is still arriving after this long.
    public var idleTimeout: Duration = .seconds(30)
    /// A connection that takes none of the bytes waiting for it this long is closed (nginx's `send_timeout`).
    public var sendTimeout: Duration = .seconds(30)
    /// Longest a graceful stop may take: connections still open then are closed, and the process exits as always.
    public var shutdownTimeout: Duration = .seconds(10)
    /// Change-feed streams and waiting long polls served at once; the next is answered 503.
    public var maximumFollowers = ChangeFeedFollowers.defaultLimit
    /// Exports (`?format=ndjson|csv`) streamed at once; the next is answered 503.
    public var maximumExports = Exports.defaultLimit
    /// Longest an export may stream: past it the response is cut, a truncated transfer (see `Exports`).
    public var exportMaximumDuration = Exports.defaultMaximumDuration
    /// Rows an export reads and sends at a time; nil, the default, for what the store's snapshot reads best
    /// (`StoreSnapshot.exportPageSize`). No option sets it (tests make it small, so that writes fall between an
    /// export's batches).
    var exportBatchSize: Int?
    /// Origins whose browsers may call the API (`*`: any); empty turns CORS off.
    public var corsOrigins: [String] = []
    /// Base of the `url` and `next` links; nil builds them from the request's Host.
    public var publicURL: String?
    /// Links follow `Forwarded` / `X-Forwarded-Proto` / `X-Forwarded-Host` (behind a proxy that sets them).
    public var trustsProxy = false
    public var upstream = UpstreamPolicy()
    /// `/readyz` answers 503 once a configured source has not imported successfully for this long; nil: never.
    public var staleAfter: Duration?
    /// Which words get sets that count and facet searches of them (`FrequentTerms`); nil: none, the engine counts.
    public var frequentTerms: FrequentTermPolicy? = FrequentTermPolicy()
    /// How webhooks are delivered (`WebhookSender`).
    public var webhooks = WebhookSettings()
    /// Whether a product search that matches nothing as typed is answered with its mistyped words corrected
    /// (`SearchPlanner.corrected`); a request turns it off with `typos=0`.
    public var correctsTypos = true

    public init() {}
}

/// The pieces a running service is made of, for tests that need to reach behind the HTTP API.
public struct ServiceComponents: Sendable {
    public let store: any CatalogStore
    public let importer: Importer
    public let metrics: RequestMetrics
    public let notifier: ChangeNotifier
    /// Writes when tokens were last used, off the request path.
    public let tokenUsage: TokenUsageService
    /// The server's open connections, closed by force when a stop outlasts `shutdownTimeout`.
    public let connections: OpenConnections
    public let shutdownTimeout: Duration

    public init(
        store: any CatalogStore, importer: Importer, metrics: RequestMetrics, notifier: ChangeNotifier, tokenUsage: TokenUsageService,
        connections: OpenConnections = OpenConnections(),
        shutdownTimeout: Duration = ServiceConfiguration().shutdownTimeout
    ) {
        self.store = store
        self.importer = importer
        self.metrics = metrics
        self.notifier = notifier
        self.tokenUsage = tokenUsage
        self.connections = connections
        self.shutdownTimeout = shutdownTimeout
    }
}

/// Prepares the importer and builds the application around an open store, with the store, the scheduler and
/// the change feed's watch as its services (the store, added first, stops last).
///
/// - Parameter onServerRunning: called with the port once the server listens (the configured one may be 0).
public func buildApplication(
    _ configuration: ServiceConfiguration, store: any CatalogStore, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> (application: some ApplicationProtocol, components: ServiceComponents) {
    try await store.failInterruptedImports()
    let metrics = RequestMetrics(maximumFollowers: configuration.maximumFollowers, logger: logger)
    let importMetrics = ImportMetrics(registry: metrics.registry)
    for (source, finished) in try await store.lastSuccessfulImports() { importMetrics.recordSuccess(of: source, finishedAt: finished) }
    let importer = Importer(
        store: store, locations: configuration.feeds, client: UpstreamClient(policy: configuration.upstream, logger: logger), logger: logger,
        onCompletion: importMetrics.record)
    let components = ServiceComponents(
        store: store, importer: importer, metrics: metrics, notifier: ChangeNotifier(), tokenUsage: TokenUsageService(store: store, logger: logger),
        shutdownTimeout: configuration.shutdownTimeout)
    let router = buildRouter(components, configuration: configuration)
    let idleTimeout = TimeAmount(configuration.idleTimeout)
    let sendTimeout = TimeAmount(configuration.sendTimeout)
    let connections = components.connections
    let onSendTimeout: @Sendable (SocketAddress?) -> Void = { [sendTimeouts = metrics.sendTimeouts] peer in
        sendTimeouts.increment()
        logger.notice(
            "closed a connection that took no bytes for \(configuration.sendTimeout)",
            metadata: ["http.send_timeout": "\(configuration.sendTimeout)", "http.peer": "\(peer.map { "\($0)" } ?? "unknown")"])
    }
    var application = Application(
        router: router,
        // Closes connections that stay idle, never finish sending a request head (slowloris), trickle a body or stop
        // reading their answer; lets a client that writes a body whole before reading read an early answer; keeps
        // the open connections known, for a stop that outlasts its timeout.
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [
                    connections.tracker(), RequestBodyDeadline(timeout: idleTimeout), LingeringClose(),
                    SendTimeout(timeout: sendTimeout, onTimeout: onSendTimeout),
                ], idleTimeout: idleTimeout)),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "catalogd"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
    application.addServices(
        store,
        ImportScheduler(importer: importer, interval: configuration.importInterval, logger: logger),
        ChangeNotifierService(notifier: components.notifier, store: store, logger: logger),
        HistoryPruningService(store: store, retention: configuration.historyRetention, logger: logger), components.tokenUsage)
    application.addServices(
        WebhookSender(
            store: store, notifier: components.notifier, metrics: WebhookMetrics(registry: metrics.registry),
            pacing: WebhookPacing(answered: metrics.answered),
            representations: Representations(base: configuration.publicURL ?? "http://\(configuration.host):\(configuration.port)"),
            settings: configuration.webhooks, logger: logger))
    if let policy = configuration.frequentTerms {
        application.addServices(
            FrequentTermsService(store: store, notifier: components.notifier, policy: policy, registry: metrics.registry, logger: logger))
    }
    logger.info("store \(store) ready; serving on http://\(configuration.host):\(configuration.port)")
    return (application, components)
}

/// The group `catalogd serve` runs: the application under its stop's deadline (see `ShutdownDeadline`), and the
/// service that ends long requests and imports before the server drains (see `LongRequestsShutdown`).
public func serviceGroup(
    _ application: some ApplicationProtocol, components: ServiceComponents, gracefulShutdownSignals: [UnixSignal], logger: Logger
) -> ServiceGroup {
    let clock = StopClock()
    return ServiceGroup(
        configuration: .init(
            services: [
                ShutdownDeadline(
                    application: application, timeout: components.shutdownTimeout, connections: components.connections, clock: clock, logger: logger),
                LongRequestsShutdown(notifier: components.notifier, importer: components.importer, clock: clock),
            ],
            gracefulShutdownSignals: gracefulShutdownSignals, logger: logger))
}

/// The routes of the service; one controller per resource.
public func buildRouter(_ components: ServiceComponents, configuration: ServiceConfiguration) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: RequestLogMiddleware(metrics: components.metrics))
    if !configuration.corsOrigins.isEmpty { router.add(middleware: CrossOriginMiddleware(origins: configuration.corsOrigins)) }
    router.add(middleware: ProblemMiddleware())
    let urls = RequestURLs(publicURL: configuration.publicURL, trustsProxy: configuration.trustsProxy)
    let store = components.store
    let authority = TokenAuthority(store: store, bootstrapSecret: configuration.apiToken, usage: components.tokenUsage)
    if configuration.requiresReadToken { router.add(middleware: ReadTokenMiddleware(authority: authority)) }
    let writes = WriteSupport(authority: authority, maximumBodyBytes: configuration.maximumBodyBytes, notifier: components.notifier, store: store)
    // Encoded pages of unchanged data, shared by every resource; its keys carry the store version.
    let cache = ResponseCache(byteBudget: configuration.responseCacheBytes)
    // `GET /` links to each resource in the order it is added here.
    var resources: [String] = []
    func resource(_ name: String) -> RouterGroup<BasicRequestContext> {
        resources.append(name)
        return router.group(RouterPath(name))
    }
    func reads(_ family: ResourceFamily, name: String? = nil) -> ResourceReads {
        ResourceReads(store: store, urls: urls, family: family, name: name, cache: cache, searchPlans: components.metrics.searchPlans, exported: true)
    }
    let exports = Exports(
        store: store, notifier: components.notifier, urls: urls, slots: RequestSlots(limit: configuration.maximumExports),
        maximumDuration: configuration.exportMaximumDuration, batchSize: configuration.exportBatchSize)
    FilmsController(reads: reads(.films), writes: writes, exports: exports).addRoutes(to: resource("films"))
    ProductsController(reads: reads(.products), writes: writes, exports: exports, correctsTypos: configuration.correctsTypos).addRoutes(
        to: resource("products"))
    CategoriesController(reads: reads(.products, name: "categories"), exports: exports).addRoutes(to: resource("categories"))
    ChangesController(store: store, notifier: components.notifier, followers: components.metrics.followers).addRoutes(to: resource("changes"))
    ImportsController(store: store, importer: components.importer, authority: authority, urls: urls, cache: cache).addRoutes(
        to: resource("imports"))
    TokensController(authority: authority, urls: urls).addRoutes(to: router.group("tokens"))
    WebhooksController(authority: authority, urls: urls, settings: configuration.webhooks).addRoutes(to: router.group("webhooks"))
    let freshness = configuration.staleAfter.map {
        ImportFreshness(sources: components.importer.configuredSources, staleAfter: $0, serviceStarted: Date())
    }
    RootController(urls: urls, home: HomePage(store: store, freshness: freshness, authority: authority), resources: resources).addRoutes(to: router)
    AssetsController().addRoutes(to: router)
    OperationsController(
        store: store, metrics: components.metrics, freshness: freshness,
        metricsTokenDigest: configuration.metricsToken.flatMap { $0.isEmpty ? nil : TokenSecret.digest($0.utf8) }
    ).addRoutes(to: router)
    router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes))
    return router
}
