import ArgumentParser
import CatalogAPI
import CatalogImport
import CatalogModel
import CatalogStore
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `catalogd`: keeps a local copy of a remote catalogue in sync and serves it over REST.
@main
struct Catalogd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keeps a local copy of a remote films and products catalogue in sync and serves it over REST.",
        subcommands: [Serve.self, Import.self, Check.self, Migrate.self, Backup.self, Token.self, Healthcheck.self],
        defaultSubcommand: Serve.self)

    static func main() async {
        MallocArenas.limit()
        await main(nil)
    }
}

/// Options every command shares.
struct CommonOptions: ParsableArguments {
    @Option(
        help: """
            Where the store is: a file path for the embedded SQLite store, or postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=MODE \
            (CATALOG_DATABASE; default \(StoreLocation.defaultLocation)). Prefer the variable for a URL with a password: arguments show in ps.
            """)
    var database: String?

    @Option(
        help: """
            Most connections to a PostgreSQL store, at least \(StoreLocation.minimumPoolSize) (CATALOG_DATABASE_POOL_SIZE; \
            default \(StoreLocation.defaultPoolSize)).
            """)
    var databasePoolSize: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical (CATALOG_LOG_LEVEL; default info).")
    var logLevel: String?

    @Option(help: "text or json (CATALOG_LOG_FORMAT; default text).")
    var logFormat: String?

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    func source(_ flag: String, _ variable: String, _ value: String?) -> OptionSource {
        OptionSource(flag: flag, variable: variable, flagValue: value, environment: environment)
    }

    /// Where the store is, as given.
    var databaseLocation: String {
        source("--database", "CATALOG_DATABASE", database).string(default: StoreLocation.defaultLocation)
    }

    /// Opens (creating and migrating if needed) the store `--database` names.
    func openStore(logger: Logger) async throws -> any CatalogStore {
        let poolSize = try source("--database-pool-size", "CATALOG_DATABASE_POOL_SIZE", databasePoolSize).integer(
            default: StoreLocation.defaultPoolSize, in: StoreLocation.minimumPoolSize...1000)
        return try await StoreLocation.open(databaseLocation, poolSize: poolSize, logger: logger)
    }

    /// Runs `body` with the store `--database` names and closes the store after it, also when `body` throws: a
    /// closed SQLite store leaves no log for the next process to read. What `body` did stands when closing fails
    /// (an import has committed by then): that is a warning, not the command's failure.
    func withStore<Result>(logger: Logger, _ body: (any CatalogStore) async throws -> Result) async throws -> Result {
        let store = try await openStore(logger: logger)
        let result: Result
        do {
            result = try await body(store)
        } catch {
            try? await store.close()
            throw error
        }
        do {
            try await store.close()
        } catch {
            logger.warning("closing the store failed: \(error)", metadata: ["store.error": "\(error)"])
        }
        return result
    }

    /// Sets up logging once for the process and returns the service's logger.
    func bootstrapLogging() throws -> Logger {
        let levelName = try source("--log-level", "CATALOG_LOG_LEVEL", logLevel).oneOf(
            Logger.Level.allCases.map(\.rawValue), default: "info")
        let format = try source("--log-format", "CATALOG_LOG_FORMAT", logFormat).oneOf(["text", "json"], default: "text")
        let level = Logger.Level(rawValue: levelName) ?? .info
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = format == "json" ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "catalogd")
    }
}

extension Catalogd {
    /// Runs the HTTP service and the scheduled importer until SIGTERM or SIGINT.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve the catalogue over HTTP and keep it in sync (the default command).")

        @OptionGroup var common: CommonOptions
        @OptionGroup var upstream: UpstreamOptions
        @OptionGroup var feeds: FeedOptions
        @Option(help: "Address to listen on (CATALOG_HOST; default 127.0.0.1).") var host: String?
        @Option(help: "Port to listen on (CATALOG_PORT; default 8080).") var port: String?
        @Option(help: "Time between scheduled imports, e.g. 30s, 15m, 1h, or off (CATALOG_IMPORT_INTERVAL; default 15m).")
        var importInterval: String?
        @Option(help: "Bootstrap secret with every scope, named bootstrap (CATALOG_API_TOKEN; default none: only stored tokens).")
        var apiToken: String?
        @Option(help: "File holding the bearer token (CATALOG_API_TOKEN_FILE).") var apiTokenFile: String?
        @Option(help: "How long change history is kept, e.g. 30d (CATALOG_HISTORY_RETENTION; default 30d).") var historyRetention: String?
        @Option(help: "Largest request body, e.g. 32MiB (CATALOG_MAX_BODY; default 32MiB).") var maxBody: String?
        @Option(help: "Memory for encoded responses of unchanged data, e.g. 64MiB, or off (CATALOG_RESPONSE_CACHE; default 32MiB).")
        var responseCache: String?
        @Option(help: "Seconds a connection may sit idle or take to send a request head, e.g. 30s (CATALOG_IDLE_TIMEOUT; default 30s).")
        var idleTimeout: String?
        @Option(
            help: """
                A connection that takes none of the bytes waiting for it this long is closed, e.g. 30s; a client reading a few \
                kilobytes a second is not (CATALOG_SEND_TIMEOUT; default 30s).
                """)
        var sendTimeout: String?
        @Option(
            help: """
                Longest a stop on SIGTERM or SIGINT may take, e.g. 10s: connections still open then are closed, and the store is \
                closed as always (CATALOG_SHUTDOWN_TIMEOUT; default 10s).
                """)
        var shutdownTimeout: String?
        @Option(help: "Change-feed streams and long polls served at once; the next gets 503 (CATALOG_MAX_FOLLOWERS; default 10000).")
        var maxFollowers: String?
        @Option(help: "Origins browsers may call the API from, comma-separated, or * (CATALOG_CORS_ORIGINS; default none: CORS off).")
        var corsOrigins: String?
        @Option(help: "Base URL for links in responses (CATALOG_PUBLIC_URL; default: from the request's Host).") var publicURL: String?
        @Option(
            help: "/readyz fails once a configured feed has not imported successfully for this long, e.g. 1h (CATALOG_STALE_AFTER; default off)."
        )
        var staleAfter: String?
        @Flag(
            help: """
                Build links from X-Forwarded-Proto/-Host or Forwarded, as set by a TLS-terminating proxy in front; only behind one \
                that sets them itself (CATALOG_TRUST_PROXY=true; default off: they are ignored). --public-url wins.
                """)
        var trustProxy = false
        @Flag(
            help: """
                Every read but /healthz, /readyz and /metrics needs a token with the read scope (CATALOG_REQUIRE_READ_TOKEN=true;                 default off: reads are open).
                """)
        var requireReadToken = false
        @Option(help: "Secret /metrics needs as a bearer token (CATALOG_METRICS_TOKEN; default none: /metrics is open).") var metricsToken: String?

        func run() async throws {
            let logger = try common.bootstrapLogging()
            let configuration = try resolve()
            let (application, components) = try await buildApplication(
                configuration, store: try await common.openStore(logger: logger), logger: logger)
            try await serviceGroup(application, components: components, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger).run()
            logger.info("catalogd stopped")
        }

        /// Reads every option from its flag or variable; the first bad value stops start-up with one line.
        func resolve() throws -> ServiceConfiguration {
            var configuration = ServiceConfiguration()
            let source = common.source
            configuration.host = source("--host", "CATALOG_HOST", host).string(default: configuration.host)
            configuration.port = try source("--port", "CATALOG_PORT", port).integer(default: configuration.port, in: 0...65535)
            configuration.feeds = try feeds.locations(common)
            configuration.importInterval = try source("--import-interval", "CATALOG_IMPORT_INTERVAL", importInterval).duration(
                default: configuration.importInterval, allowOff: true)
            configuration.historyRetention =
                try source("--history-retention", "CATALOG_HISTORY_RETENTION", historyRetention).duration(
                    default: configuration.historyRetention, allowOff: false) ?? configuration.historyRetention
            configuration.maximumBodyBytes = try source("--max-body", "CATALOG_MAX_BODY", maxBody).byteSize(default: configuration.maximumBodyBytes)
            configuration.responseCacheBytes = try source("--response-cache", "CATALOG_RESPONSE_CACHE", responseCache).byteSize(
                default: configuration.responseCacheBytes, allowOff: true)
            configuration.upstream = try upstream.policy(common)
            configuration.idleTimeout =
                try source("--idle-timeout", "CATALOG_IDLE_TIMEOUT", idleTimeout).duration(default: configuration.idleTimeout, allowOff: false)
                ?? configuration.idleTimeout
            configuration.sendTimeout =
                try source("--send-timeout", "CATALOG_SEND_TIMEOUT", sendTimeout).duration(default: configuration.sendTimeout, allowOff: false)
                ?? configuration.sendTimeout
            configuration.shutdownTimeout =
                try source("--shutdown-timeout", "CATALOG_SHUTDOWN_TIMEOUT", shutdownTimeout).duration(
                    default: configuration.shutdownTimeout, allowOff: false) ?? configuration.shutdownTimeout
            configuration.maximumFollowers = try source("--max-followers", "CATALOG_MAX_FOLLOWERS", maxFollowers).integer(
                default: configuration.maximumFollowers, in: 1...1_000_000)
            configuration.corsOrigins = source("--cors-origins", "CATALOG_CORS_ORIGINS", corsOrigins).string(default: "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            configuration.publicURL = try source("--public-url", "CATALOG_PUBLIC_URL", publicURL).url(default: nil)
            configuration.staleAfter = try source("--stale-after", "CATALOG_STALE_AFTER", staleAfter).duration(default: nil, allowOff: true)
            configuration.trustsProxy = try source("--trust-proxy", "CATALOG_TRUST_PROXY", trustProxy ? "true" : nil).boolean(default: false)
            configuration.requiresReadToken = try source("--require-read-token", "CATALOG_REQUIRE_READ_TOKEN", requireReadToken ? "true" : nil)
                .boolean(default: false)
            configuration.metricsToken = source("--metrics-token", "CATALOG_METRICS_TOKEN", metricsToken).value.flatMap { $0.isEmpty ? nil : $0 }
            let tokenFile = source("--api-token-file", "CATALOG_API_TOKEN_FILE", apiTokenFile)
            if let token = source("--api-token", "CATALOG_API_TOKEN", apiToken).value, !token.isEmpty {
                configuration.apiToken = token
            } else if let path = tokenFile.value, !path.isEmpty {
                guard let contents = FileManager.default.contents(atPath: path), let token = String(data: contents, encoding: .utf8) else {
                    throw tokenFile.fail("cannot read the token file \(path)")
                }
                let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !trimmed.isEmpty else { throw tokenFile.fail("the token file \(path) is empty") }
                configuration.apiToken = trimmed
            }
            return configuration
        }
    }

}

/// How the importer treats the upstream; shared by `serve` and `import`.
struct UpstreamOptions: ParsableArguments {
    @Option(help: "Longest wait for one upstream response, e.g. 30s (CATALOG_UPSTREAM_TIMEOUT; default 30s).") var upstreamTimeout: String?
    @Option(
        help: """
            Largest upstream JSON document, a page or a listing as one array, e.g. 256MiB; an NDJSON listing is read line by line \
            and not limited as a whole (CATALOG_UPSTREAM_MAX_BODY; default 256MiB).
            """)
    var upstreamMaxBody: String?
    @Option(help: "Longest line of an NDJSON listing, e.g. 1MiB (CATALOG_UPSTREAM_MAX_LINE; default 1MiB).") var upstreamMaxLine: String?

    func policy(_ common: CommonOptions) throws -> UpstreamPolicy {
        var policy = UpstreamPolicy()
        policy.requestTimeout =
            try common.source("--upstream-timeout", "CATALOG_UPSTREAM_TIMEOUT", upstreamTimeout).duration(
                default: policy.requestTimeout, allowOff: false) ?? policy.requestTimeout
        policy.maximumResponseBytes = try common.source("--upstream-max-body", "CATALOG_UPSTREAM_MAX_BODY", upstreamMaxBody).byteSize(
            default: policy.maximumResponseBytes)
        policy.maximumLineBytes = try common.source("--upstream-max-line", "CATALOG_UPSTREAM_MAX_LINE", upstreamMaxLine).byteSize(
            default: policy.maximumLineBytes)
        return policy
    }
}

extension Catalogd {
    /// One import run from the command line.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Import one feed once, print the report, exit 0 on success and 1 on failure.")

        @OptionGroup var common: CommonOptions
        @OptionGroup var upstream: UpstreamOptions
        @OptionGroup var feeds: FeedOptions
        @Argument(help: "films or products") var source: String
        @Option(help: "Feed URL or file path for this run only (default: the source's feed, as --films-url / --products-url).") var from: String?
        @Flag(help: "Print the report as JSON.") var json = false

        func run() async throws {
            let logger = try common.bootstrapLogging()
            guard let feed = FeedSource(rawValue: source) else {
                throw ValidationError("source must be films or products, got '\(source)'")
            }
            let locations = try feeds.locations(common)
            let client = UpstreamClient(policy: try upstream.policy(common), logger: logger)
            let showsProgress = isatty(STDERR_FILENO) == 1 && !json
            let report: ImportReport
            do {
                report = try await common.withStore(logger: logger) { store in
                    try await Importer(store: store, locations: locations, client: client, logger: logger).run(feed, from: from) { pages, records in
                        if showsProgress { FileHandle.standardError.write(Data("\r\(pages) pages, \(records) records read".utf8)) }
                    }
                }
            } catch ImportStartError.notConfigured(let source) {
                let name = source.rawValue
                let why = "Error: the \(name) feed is disabled: give --from, or set --\(name)-url (CATALOG_\(name.uppercased())_URL)\n"
                FileHandle.standardError.write(Data(why.utf8))
                throw ExitCode.failure
            }
            if showsProgress { FileHandle.standardError.write(Data("\n".utf8)) }
            print(json ? ReportText.json(report) : ReportText.text(report))
            if report.status != .succeeded { throw ExitCode.failure }
        }
    }

    /// Integrity check of the store.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the store: its engine's integrity, derived counts against a recount, history continuity. Exit 1 if anything is wrong.")

        @OptionGroup var common: CommonOptions

        func run() async throws {
            let logger = try common.bootstrapLogging()
            try await common.withStore(logger: logger) { store in
                let problems = try await store.check()
                guard problems.isEmpty else {
                    print("\(store): \(problems.count) problem(s)")
                    for problem in problems { print("  \(problem)") }
                    throw ExitCode.failure
                }
                print("\(store): ok")
            }
        }
    }

    /// Applies pending migrations and lists them.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create or migrate the store and list the applied migrations.")

        @OptionGroup var common: CommonOptions

        func run() async throws {
            let logger = try common.bootstrapLogging()
            try await common.withStore(logger: logger) { store in
                for migration in try await store.appliedMigrations() { print("applied: \(migration)") }
            }
        }
    }

    /// For container health checks, so the image needs no curl.
    struct Healthcheck: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Exit 0 if the service answers /healthz with 200.")

        @Option(help: "URL to probe (default http://127.0.0.1:$CATALOG_PORT/healthz).") var url: String?

        func run() async throws {
            let port = ProcessInfo.processInfo.environment["CATALOG_PORT"] ?? "8080"
            guard let target = URL(string: url ?? "http://127.0.0.1:\(port)/healthz") else { throw ValidationError("not a URL: \(url ?? "")") }
            var request = URLRequest(url: target)
            request.timeoutInterval = 3
            let (_, response) = try await URLSession.shared.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw ExitCode.failure }
        }
    }
}

/// How `catalogd import` prints a report.
enum ReportText {
    static func text(_ report: ImportReport) -> String {
        var lines = ["import \(report.id): \(report.summary)"]
        for rejection in report.rejections.prefix(20) {
            lines.append("  rejected #\(rejection.index)\(rejection.key.map { " (\($0))" } ?? ""): \(rejection.reason)")
        }
        if report.rejected > 20 { lines.append("  … \(report.rejected - 20) more rejections in GET /imports/\(report.id)") }
        return lines.joined(separator: "\n")
    }

    static func json(_ report: ImportReport) -> String {
        var writer = JSONWriter()
        report.write(url: nil, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
