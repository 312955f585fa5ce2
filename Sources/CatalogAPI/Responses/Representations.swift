import CatalogModel
import CatalogStore
import Hummingbird

/// The JSON shapes of the API (the schemas of `openapi.yaml`), each written with its fields in one fixed order,
/// so the same data always gives the same bytes.
struct Representations {
    /// This service's base URL for the request being answered.
    let base: String

    func filmURL(_ episodeID: Int) -> String { "\(base)/films/\(episodeID)/" }
    func productURL(_ serialCode: String) -> String { ProductRepresentation.addressPrefix(base: base) + PathComponent.encode(serialCode) + "/" }
    func categoryURL(_ name: String) -> String { "\(base)/categories/\(PathComponent.encode(name))/" }
    func importURL(_ id: Int64) -> String { "\(base)/imports/\(id)/" }

    func film(_ row: FilmRow, into writer: inout JSONWriter) {
        let film = row.film
        writer.objectStart()
        writer.member("episode_id", film.episodeID)
        for (name, value) in [
            ("title", film.title), ("opening_crawl", film.openingCrawl), ("director", film.director), ("producer", film.producer),
            ("release_date", film.releaseDate),
        ] {
            writer.member(name, value)
        }
        for kind in FilmLinkKind.allCases {
            writer.key(kind.rawValue)
            writer.arrayStart()
            for link in film.links(kind) { writer.string(link) }
            writer.arrayEnd()
        }
        for kind in FilmLinkKind.allCases {
            writer.member("\(kind.singular)_count", row.counts[kind] ?? 0)
        }
        for (name, value) in [("created", film.created), ("edited", film.edited), ("url", filmURL(film.episodeID)), ("source_url", film.sourceURL)] {
            writer.member(name, value)
        }
        writer.member("source", row.source)
        writer.objectEnd()
    }

    func product(_ row: ProductRow, into writer: inout JSONWriter) {
        let representation = ProductRepresentation(base: base)
        StoredProduct.withStored(row) { representation.write($0, into: &writer) }
    }

    func category(_ row: CategoryRow, into writer: inout JSONWriter) {
        writer.objectStart()
        writer.member("name", row.name)
        writer.member("product_count", row.productCount)
        writer.member("url", categoryURL(row.name))
        writer.member("products", "\(base)/products/?category=\(PathComponent.encode(row.name))")
        writer.objectEnd()
    }

    func importReport(_ report: ImportReport, into writer: inout JSONWriter) {
        report.write(url: importURL(report.id), into: &writer)
    }

    /// `{"count", "next", "previous", "results"}`, the envelope SWAPI and Django REST Framework clients read;
    /// `results` writes the rows inside the array. A list that is `exported` links to its exports after the cursors:
    /// `"export": {"ndjson": …, "csv": …}`.
    func envelope<Rows>(
        _ page: Page<Rows>, request: Request, exported: Bool = false, results: (Rows, inout JSONWriter) -> Void,
        trailer: (Rows, inout JSONWriter) -> Void = { _, _ in }
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.objectStart()
        writer.member("count", page.count)
        writer.member("next", page.nextCursor.map { RequestURLs.listURL(base: base, request: request, cursor: $0) })
        writer.member("previous", page.previousCursor.map { RequestURLs.listURL(base: base, request: request, cursor: $0) })
        if exported {
            writer.key("export")
            writer.objectStart()
            for format in ExportFormat.allCases {
                writer.member(format.rawValue, RequestURLs.exportURL(base: base, request: request, format: format))
            }
            writer.objectEnd()
        }
        if !page.corrections.isEmpty {
            writer.key("corrections")
            writer.arrayStart()
            for correction in page.corrections {
                writer.objectStart()
                writer.member("typed", correction.typed)
                writer.key("searched")
                writer.arrayStart()
                for searched in correction.searched { writer.string(searched) }
                writer.arrayEnd()
                writer.objectEnd()
            }
            writer.arrayEnd()
        }
        writer.key("results")
        writer.arrayStart()
        results(page.rows, &writer)
        writer.arrayEnd()
        trailer(page.rows, &writer)
        writer.objectEnd()
        return writer.bytes
    }

    /// A whole list in the envelope of one page, `{"count", "next": null, "previous": null, "results"}`, as the
    /// administrators' lists (tokens, webhooks) answer: each item rendered by `render`.
    static func wholeList<Item>(_ items: [Item], _ render: (Item, inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: 512 * (items.count + 1))
        writer.objectStart()
        writer.member("count", items.count)
        for name in ["next", "previous"] {
            writer.key(name)
            writer.null()
        }
        writer.key("results")
        writer.arrayStart()
        for item in items { render(item, &writer) }
        writer.arrayEnd()
        writer.objectEnd()
        return writer.bytes
    }

    /// Renders one object on its own.
    static func single(_ render: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter()
        render(&writer)
        return writer.bytes
    }
}
