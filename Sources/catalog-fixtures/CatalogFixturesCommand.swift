import ArgumentParser
import CatalogFixtures
import Foundation

/// `catalog-fixtures`: the fake upstream, and data files of the same catalogue.
@main
struct CatalogFixturesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog-fixtures", abstract: "A fake SWAPI- and DummyJSON-shaped upstream for tests, demos and benchmarks.",
        subcommands: [Serve.self, Generate.self])

    struct CatalogOptions: ParsableArguments {
        @Option(help: "Number of films.") var films = 6
        @Option(help: "Number of products.") var products = 1000
        @Option(help: "Number of product categories.") var categories = 10
        @Option(help: "Seed: the same seed gives the same catalogue.") var seed: UInt64 = 1
        @Option(help: "Fraction of products (0 to 1) given a new name or price, as a feed looks after an update.")
        var changedFraction = 0.0

        var catalog: FixtureCatalog {
            let catalog = FixtureCatalog(films: films, products: products, categories: categories, seed: seed)
            return changedFraction > 0 ? catalog.changing(fraction: changedFraction) : catalog
        }
    }

    /// Serves the catalogue on loopback until interrupted.
    struct Serve: AsyncParsableCommand {
        @OptionGroup var catalog: CatalogOptions
        @Option(help: "Address to listen on.") var host = "127.0.0.1"
        @Option(help: "Port; 0 picks a free one.") var port = 9090
        @Option(help: "Sleep this long before each response.") var delayMilliseconds = 0
        @Flag(name: .customLong("disable-etags"), help: "Send no ETags (so every re-import is unconditional).") var disableETags = false

        func run() async throws {
            let upstream = FixtureUpstream(
                catalog: catalog.catalog, faults: FixtureFaults(delayMilliseconds: delayMilliseconds, disableETags: disableETags))
            let bound = try await upstream.start(host: host, port: port)
            print("fake upstream on http://\(host):\(bound) (films: /api/films/, products: /products, /products.json, /products.ndjson)")
            let (stopped, stop) = AsyncStream.makeStream(of: Void.self)
            let sources = [SIGINT, SIGTERM].map { number in
                Foundation.signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number)
                source.setEventHandler { stop.finish() }
                source.resume()
                return source
            }
            for await _ in stopped {}
            sources.forEach { $0.cancel() }
            await upstream.stop()
        }
    }

    /// Writes the products to a file, for offline imports and the peers in benchmarks.
    struct Generate: AsyncParsableCommand {
        @OptionGroup var catalog: CatalogOptions
        @Option(help: "ndjson, json (one array) or dummyjson (one page with every product).") var format = "ndjson"
        @Option(help: "File to write.") var output: String

        func run() async throws {
            let body: [UInt8]
            switch format {
            case "ndjson": body = FixtureDocuments.productsNDJSON(catalog.catalog)
            case "json": body = FixtureDocuments.productsArray(catalog.catalog)
            case "dummyjson": body = FixtureDocuments.productsPage(catalog.catalog)
            default: throw ValidationError("format must be ndjson, json or dummyjson")
            }
            try Data(body).write(to: URL(fileURLWithPath: output))
        }
    }
}
