import ArgumentParser
import CatalogImport

/// Where the feeds are; shared by `serve` and `import`, so both read and check them the same way.
struct FeedOptions: ParsableArguments {
    @Option(help: "SWAPI-shaped films feed; empty disables it (CATALOG_FILMS_URL; default the public Star Wars API).") var filmsURL: String?
    @Option(help: "DummyJSON, JSON array or NDJSON products feed; empty disables it (CATALOG_PRODUCTS_URL; default DummyJSON).")
    var productsURL: String?
    @Option(help: "Products asked for per DummyJSON page (CATALOG_PRODUCTS_PAGE_SIZE; default 100).") var productsPageSize: String?

    /// Reads each option from its flag or variable; a bad value stops the command with one line naming it.
    func locations(_ common: CommonOptions) throws -> FeedLocations {
        var locations = FeedLocations()
        locations.films = try common.source("--films-url", "CATALOG_FILMS_URL", filmsURL).url(default: locations.films) ?? ""
        locations.products = try common.source("--products-url", "CATALOG_PRODUCTS_URL", productsURL).url(default: locations.products) ?? ""
        locations.productPageSize = try common.source("--products-page-size", "CATALOG_PRODUCTS_PAGE_SIZE", productsPageSize).integer(
            default: locations.productPageSize, in: 1...10_000)
        return locations
    }
}
