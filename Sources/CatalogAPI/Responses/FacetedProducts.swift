import CatalogModel
import CatalogStore
import Hummingbird

/// A page's products as rendered, with the facets asked for, counted in the same state of the catalogue.
struct FacetedProducts<Rows: ProductPageRows>: Sendable {
    /// Reads of a page and its facets before giving up, when writes keep moving the catalogue in between.
    static var snapshotAttempts: Int { 3 }

    var products: Rows
    var facets: ProductFacets?

    /// The page, and the facets of the products `filter` selects when some are asked for. Both are read again
    /// when a write came in between, so that the counts always describe the page's catalogue.
    static func read(
        _ store: any CatalogStore, filter: ProductFilter, page request: PageRequest, facets: (fields: [ProductFacetField], size: Int)?,
        rows: @autoclosure () -> Rows
    ) async throws -> Page<FacetedProducts> {
        for _ in 0..<snapshotAttempts {
            let page = try await store.products(filter, page: request, into: rows())
            guard let facets else { return page.with(FacetedProducts(products: page.rows)) }
            // The facets of the search the page read, corrected as it was.
            var counted = filter
            counted.correctedSearch = page.correctedSearch
            let counts = try await store.productFacets(counted, fields: facets.fields, size: facets.size)
            if counts.versions.products == page.versions.products { return page.with(FacetedProducts(products: page.rows, facets: counts)) }
        }
        throw Problem(
            .serviceUnavailable, type: "catalogue-moving",
            detail: "the products changed while their facets were counted, \(snapshotAttempts) times; try again", headers: [.retryAfter: "1"])
    }

    /// Writes `"facets": {"category": [{"value", "count", "url"}…], …}`, each value's link narrowing the request's list to it.
    func writeFacets(_ representations: Representations, request: Request, into writer: inout JSONWriter) {
        guard let facets else { return }
        writer.key("facets")
        writer.objectStart()
        for (field, values) in facets.counts {
            writer.key(field.rawValue)
            writer.arrayStart()
            for value in values {
                writer.objectStart()
                writer.member("value", value.value)
                writer.member("count", value.count)
                writer.member("url", RequestURLs.narrowedURL(base: representations.base, request: request, name: field.rawValue, value: value.value))
                writer.objectEnd()
            }
            writer.arrayEnd()
        }
        writer.objectEnd()
    }
}

extension Page {
    /// The same page with other rows.
    fileprivate func with<Other>(_ rows: Other) -> Page<Other> {
        Page<Other>(
            rows: rows, count: count, nextCursor: nextCursor, previousCursor: previousCursor, versions: versions, searchRead: searchRead,
            corrections: corrections, correctedSearch: correctedSearch)
    }
}
