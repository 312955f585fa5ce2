import CatalogModel
import CatalogStore

/// The CSV rows of an export (`ExportFormat.csv`): a list's `results` with the same fields in the same order, one
/// column each; a film's links are their counts, its `*_count` columns.
extension Representations {
    static let productCSVHeader = [
        "serial_code", "name", "description", "category", "brand", "price", "stock", "updated_at", "url", "source_url", "source",
    ]

    /// `addressPrefix` is `ProductRepresentation.addressPrefix(base:)`'s UTF-8, made once for all the rows.
    func productCSV(_ product: StoredProduct, addressPrefix: [UInt8], into csv: inout CSVWriter) {
        // Field by field rather than over an array of them: an array costs an allocation a row.
        csv.field(product.serialCode)
        csv.field(product.name)
        csv.field(product.description)
        csv.field(product.category)
        csv.field(product.brand)
        csv.field(product.price)
        csv.field(product.stock)
        csv.field(product.updatedAt)
        PathComponent.withEncoded(product.serialCode) { key in
            // Written from the stack: a string of each row's address costs an allocation a row.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: addressPrefix.count + key.count + 1) { address in
                var end = address.initialize(fromContentsOf: addressPrefix)
                end = address[end...].initialize(fromContentsOf: key)
                address[end] = UInt8(ascii: "/")
                csv.field(UnsafeBufferPointer(address))
            }
        }
        csv.field(product.sourceURL)
        csv.field(product.source)
    }

    static let filmCSVHeader =
        ["episode_id", "title", "opening_crawl", "director", "producer", "release_date"]
        + FilmLinkKind.allCases.map { "\($0.singular)_count" } + ["created", "edited", "url", "source_url", "source"]

    func filmCSV(_ row: FilmRow, into csv: inout CSVWriter) {
        let film = row.film
        csv.field(film.episodeID)
        for text in [film.title, film.openingCrawl, film.director, film.producer, film.releaseDate] { csv.field(text) }
        for kind in FilmLinkKind.allCases { csv.field(row.counts[kind] ?? 0) }
        for text in [film.created, film.edited, filmURL(film.episodeID), film.sourceURL, row.source] { csv.field(text) }
    }

    static let categoryCSVHeader = ["name", "product_count", "url", "products"]

    func categoryCSV(_ row: CategoryRow, into csv: inout CSVWriter) {
        csv.field(row.name)
        csv.field(row.productCount)
        csv.field(categoryURL(row.name))
        csv.field("\(base)/products/?category=\(PathComponent.encode(row.name))")
    }
}
