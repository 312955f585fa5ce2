import Foundation

/// A deterministic catalogue for the fake upstream: the same seed gives the same films and products.
public struct FixtureCatalog: Sendable {
    public var films: [FixtureFilm]
    public var products: [FixtureProduct]

    public init(films: Int = 6, products: Int = 100, categories: Int = 10, seed: UInt64 = 1) {
        var random = SplitMix64(seed: seed)
        self.films = (0..<films).map { index in
            let episode = index + 1
            func links(_ kind: String, upTo maximum: Int) -> [String] {
                (0..<Int(random.next() % UInt64(maximum + 1))).map { "https://swapi.test/api/\(kind)/\(episode * 100 + $0)/" }
            }
            return FixtureFilm(
                episodeID: episode, title: "Episode \(episode)", openingCrawl: "A long time ago, part \(episode)…",
                director: ["George Lucas", "Irvin Kershner", "Richard Marquand"][index % 3], producer: "Producer \(index % 2)",
                releaseDate: "\(1977 + index)-05-\(10 + index % 18)", created: "2014-12-10T14:23:31.880000Z", edited: "2014-12-20T19:49:45.256000Z",
                characters: links("people", upTo: 12), planets: links("planets", upTo: 4), starships: links("starships", upTo: 5),
                vehicles: links("vehicles", upTo: 3), species: links("species", upTo: 4))
        }
        self.products = (0..<products).map { index in
            let cents = 100 + Int(random.next() % 99_900)
            return FixtureProduct(
                sku: String(format: "SKU-%06d", index), title: "Product \(index)",
                description: "Description of product \(index), \"quoted\" and plain.",
                category: "category-\(Int(random.next() % UInt64(max(categories, 1))))", brand: index % 7 == 0 ? nil : "Brand \(index % 13)",
                price: "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)", stock: Int(random.next() % 50),
                updatedAt: "2025-0\(1 + index % 9)-1\(index % 10)T10:00:00Z")
        }
    }

    /// A copy in which a deterministic `fraction` of products has a new price or name.
    public func changing(fraction: Double, seed: UInt64 = 2) -> FixtureCatalog {
        var copy = self
        var random = SplitMix64(seed: seed)
        for index in copy.products.indices where Double(random.next() % 1_000_000) / 1_000_000 < fraction {
            if random.next() % 2 == 0 {
                copy.products[index].title += " (revised)"
            } else {
                let cents = 100 + Int(random.next() % 99_900)
                let price = "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)"
                copy.products[index].price = price == copy.products[index].price ? price + "1" : price
            }
        }
        return copy
    }

    /// A copy without the last `count` products.
    public func dropping(products count: Int) -> FixtureCatalog {
        var copy = self
        copy.products.removeLast(min(count, copy.products.count))
        return copy
    }
}
