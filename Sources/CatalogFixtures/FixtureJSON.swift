import CatalogModel

/// The fake upstream's documents, written with the project's `JSONWriter` so prices stay verbatim.
enum FixtureJSON {
    static func film(_ film: FixtureFilm, base: String, into writer: inout JSONWriter) {
        writer.objectStart()
        for (name, value) in [
            ("title", film.title), ("opening_crawl", film.openingCrawl), ("director", film.director), ("producer", film.producer),
            ("release_date", film.releaseDate),
        ] {
            writer.member(name, value)
        }
        writer.member("episode_id", film.episodeID)
        for (name, links) in [
            ("characters", film.characters), ("planets", film.planets), ("starships", film.starships), ("vehicles", film.vehicles),
            ("species", film.species),
        ] {
            writer.key(name)
            writer.arrayStart()
            for link in links { writer.string(link) }
            writer.arrayEnd()
        }
        for (name, value) in [("created", film.created), ("edited", film.edited), ("url", "\(base)/api/films/\(film.episodeID)/")] {
            writer.member(name, value)
        }
        writer.objectEnd()
    }

    /// One product; `invalid` makes it break validation (a negative price), for fault tests.
    static func product(_ product: FixtureProduct, id: Int, invalid: Bool, into writer: inout JSONWriter) {
        writer.objectStart()
        writer.member("id", id)
        for (name, value) in [("title", product.title), ("description", product.description), ("category", product.category)] {
            writer.member(name, value)
        }
        if let brand = product.brand {
            writer.member("brand", brand)
        }
        writer.key("price")
        writer.number(literal: invalid ? "-1" : product.price)
        writer.member("stock", product.stock)
        writer.member("sku", product.sku)
        writer.key("meta")
        writer.objectStart()
        writer.member("updatedAt", product.updatedAt)
        writer.objectEnd()
        writer.objectEnd()
    }

    static func filmsPage(_ films: ArraySlice<FixtureFilm>, count: Int, page: Int, lastPage: Int, base: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 4096)
        writer.objectStart()
        writer.member("count", count)
        writer.member("next", page < lastPage ? "\(base)/api/films/?page=\(page + 1)" : nil)
        writer.member("previous", page > 1 ? "\(base)/api/films/?page=\(page - 1)" : nil)
        writer.key("results")
        writer.arrayStart()
        for film in films { self.film(film, base: base, into: &writer) }
        writer.arrayEnd()
        writer.objectEnd()
        return writer.bytes
    }

    static func productsPage(_ catalog: FixtureCatalog, skip: Int, limit: Int, invalid: Set<Int>) -> [UInt8] {
        let range = min(skip, catalog.products.count)..<min(skip + limit, catalog.products.count)
        var writer = JSONWriter(capacity: 64 + range.count * 320)
        writer.objectStart()
        writer.key("products")
        writer.arrayStart()
        for index in range { product(catalog.products[index], id: index + 1, invalid: invalid.contains(index), into: &writer) }
        writer.arrayEnd()
        writer.member("total", catalog.products.count)
        writer.member("skip", skip)
        writer.member("limit", range.count)
        writer.objectEnd()
        return writer.bytes
    }

    static func productsArray(_ catalog: FixtureCatalog, invalid: Set<Int>) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + catalog.products.count * 320)
        writer.arrayStart()
        for (index, item) in catalog.products.enumerated() { product(item, id: index + 1, invalid: invalid.contains(index), into: &writer) }
        writer.arrayEnd()
        return writer.bytes
    }

    static func productsNDJSON(_ catalog: FixtureCatalog, invalid: Set<Int>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(catalog.products.count * 320)
        for (index, item) in catalog.products.enumerated() {
            var writer = JSONWriter(capacity: 320)
            product(item, id: index + 1, invalid: invalid.contains(index), into: &writer)
            bytes += writer.bytes
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
