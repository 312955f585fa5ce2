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
            Most connections to a PostgreSQL store in the pool of reads and writes, at least \(StoreLocation.minimumPoolSize); as many \
            again for the first pages of one-word searches and of plain orderings (CATALOG_DATABASE_POOL_SIZE; \
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

    /// Runs `body` with the store `--database` names, its connections running beside it, and closes the store
    /// after it, also when `body` throws: a closed SQLite store leaves no log for the next process to read. What
    /// `body` did stands when closing fails (an import has committed by then): that is a warning, not the
    /// command's failure.
    func withStore<Result>(logger: Logger, _ body: (any CatalogStore) async throws -> Result) async throws -> Result {
        let store = try await openStore(logger: logger)
        let result: Result
        do {
            result = try await store.withConnections { try await body(store) }
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
