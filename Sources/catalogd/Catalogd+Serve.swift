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

extension Catalogd {
    /// Runs the HTTP service and the scheduled importer until SIGTERM or SIGINT.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve the catalogue over HTTP and keep it in sync (the default command).")

        @OptionGroup var common: CommonOptions
        @OptionGroup var upstream: UpstreamOptions
        @OptionGroup var feeds: FeedOptions
        @OptionGroup var webhooks: WebhookOptions
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
        @Option(help: "Exports (?format=ndjson or csv) streamed at once; the next gets 503 (CATALOG_MAX_EXPORTS; default 4).")
        var maxExports: String?
        @Option(
            help: """
                Longest an export may stream, e.g. 10m: past it the response is cut, a truncated transfer; on SQLite its snapshot                 holds the WAL back until then (CATALOG_EXPORT_MAX_DURATION; default 10m).
                """)
        var exportMaxDuration: String?
        @Option(help: "Origins browsers may call the API from, comma-separated, or * (CATALOG_CORS_ORIGINS; default none: CORS off).")
        var corsOrigins: String?
        @Option(help: "Base URL for links in responses (CATALOG_PUBLIC_URL; default: from the request's Host).") var publicURL: String?
        @Option(
            help: "/readyz fails once a configured feed has not imported successfully for this long, e.g. 1h (CATALOG_STALE_AFTER; default off)."
        )
        var staleAfter: String?
        @Option(
            help: """
                Sets of the words at least this share of products hold, which count and facet searches of them, e.g. 5%, or off \
                (CATALOG_FREQUENT_TERMS; default 5%).
                """)
        var frequentTerms: String?
        @Option(
            help: """
                Correct the mistyped words of a product search that matches nothing as typed, on or off (CATALOG_SEARCH_TYPOS; \
                default on; a request turns it off with typos=0).
                """)
        var searchTypos: String?
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
            let store = try await common.openStore(logger: logger)
            // The store's connections run around the group, whose store service closes the store after the others stop.
            try await store.withConnections {
                let (application, components) = try await buildApplication(configuration, store: store, logger: logger)
                try await serviceGroup(application, components: components, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger).run()
            }
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
            configuration.webhooks = try webhooks.settings(common)
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
            configuration.maximumExports = try source("--max-exports", "CATALOG_MAX_EXPORTS", maxExports).integer(
                default: configuration.maximumExports, in: 1...1_000)
            configuration.exportMaximumDuration =
                try source("--export-max-duration", "CATALOG_EXPORT_MAX_DURATION", exportMaxDuration).duration(
                    default: configuration.exportMaximumDuration, allowOff: false) ?? configuration.exportMaximumDuration
            configuration.corsOrigins = source("--cors-origins", "CATALOG_CORS_ORIGINS", corsOrigins).string(default: "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            configuration.publicURL = try source("--public-url", "CATALOG_PUBLIC_URL", publicURL).url(default: nil)
            configuration.staleAfter = try source("--stale-after", "CATALOG_STALE_AFTER", staleAfter).duration(default: nil, allowOff: true)
            configuration.frequentTerms = try source("--frequent-terms", "CATALOG_FREQUENT_TERMS", frequentTerms).frequentTermPolicy(
                default: configuration.frequentTerms)
            configuration.correctsTypos = try source("--search-typos", "CATALOG_SEARCH_TYPOS", searchTypos).boolean(default: true)
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
