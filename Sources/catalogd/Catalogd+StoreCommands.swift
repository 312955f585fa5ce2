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
