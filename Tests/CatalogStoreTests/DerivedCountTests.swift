import CatalogFixtures
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Testing

@Suite("Derived counts")
struct DerivedCountTests {
    /// The store's own recount (`check`), and no category left without products.
    func mismatches(_ store: any CatalogStore) async throws -> [String] {
        var problems = try await store.check()
        let categories = try await store.categories(CategoryFilter(), page: PageRequest(pageSize: PageRequest.maximumPageSize)).rows
        problems += categories.filter { $0.productCount <= 0 }.map { "empty category \($0.name)" }
        return problems
    }

    @Test(arguments: StoreBackend.available)
    func randomBatchesThroughTheStoreAndRawSQLKeepEveryCountTrue(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        var random = SplitMix64(seed: 20_261_122)
        let categories = ["a", "b", "c", "d"]
        let kinds = FilmLinkKind.allCases
        for batch in 0..<30 {
            switch batch % 3 {
            case 0:
                // Inserts, updates and category moves through the store.
                let products = try (0..<40).map { _ in
                    try product(
                        "P\(Int.random(in: 0..<60, using: &random))", category: categories.randomElement(using: &random) ?? "a",
                        price: "\(Int.random(in: 1..<100, using: &random)).50")
                }
                var unique: [String: Product] = [:]
                for item in products { unique[item.serialCode] = item }
                _ = try await store.upsertProducts(Array(unique.values), author: "api")
                var links: [FilmLinkKind: [String]] = [:]
                for kind in kinds { links[kind] = (0..<Int.random(in: 0..<6, using: &random)).map { "https://swapi.test/\(kind.rawValue)/\($0)" } }
                let film = Film(episodeID: Int.random(in: 1...8, using: &random), title: "t\(batch)", releaseDate: "1977-05-25", links: links)
                _ = try await store.upsertFilms([film], author: "api")
            case 1:
                // Deletes through the store.
                for _ in 0..<8 { _ = try await store.deleteProduct(serialCode: "P\(Int.random(in: 0..<60, using: &random))", author: "api") }
                _ = try await store.deleteFilm(episodeID: Int.random(in: 1...8, using: &random), author: "api")
            default:
                // Raw SQL, as an operator might type it: moves, deletes and link edits bypass the store's code.
                let target = categories.randomElement(using: &random) ?? "a"
                let moved = Int.random(in: 0..<60, using: &random)
                let deleted = Int.random(in: 0..<60, using: &random)
                let film = Int.random(in: 1...8, using: &random)
                try await temporary.executeRaw("UPDATE products SET category = ? WHERE serial_code = ?", [.text(target), .text("P\(moved)")])
                try await temporary.executeRaw("DELETE FROM products WHERE serial_code = ?", [.text("P\(deleted)")])
                try await temporary.executeRaw("DELETE FROM film_links WHERE episode_id = ? AND position = 0", [.integer(film)])
                try await temporary.executeRaw(
                    "UPDATE film_links SET kind = 'planets', position = 1000 + position WHERE episode_id = ? AND kind = 'characters' AND position = 1",
                    [.integer(film)])
            }
            let problems = try await mismatches(store)
            #expect(problems.isEmpty, "batch \(batch): \(problems)")
        }
        let products = try await store.products(ProductFilter(), page: PageRequest()).count
        #expect(products > 0)
    }

    @Test(arguments: StoreBackend.available) func aCategoryWithNoProductsLeftDisappears(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts([try product("A", category: "lamps"), try product("B", category: "lamps")], author: "api")
        let before = try await store.category(name: "lamps").0?.productCount
        #expect(before == 2)
        _ = try await store.deleteProduct(serialCode: "A", author: "api")
        _ = try await store.upsertProducts([try product("B", category: "chairs")], author: "api")
        let lamps = try await store.category(name: "lamps").0
        #expect(lamps == nil)
        let chairs = try await store.category(name: "chairs").0?.productCount
        #expect(chairs == 1)
    }

    @Test(arguments: StoreBackend.available)
    func checkNamesTheFilmAndCategoryWhoseCountWasTamperedWith(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts([try product("A", category: "lamps")], author: "api")
        _ = try await store.upsertFilms(
            [Film(episodeID: 4, title: "t", releaseDate: "1977-05-25", links: [.characters: ["x", "y"]])], author: "api")
        let healthy = try await store.check()
        #expect(healthy.isEmpty)
        try await temporary.executeRaw("UPDATE films SET character_count = 99 WHERE episode_id = 4", [])
        try await temporary.executeRaw("UPDATE categories SET product_count = 5 WHERE name = 'lamps'", [])
        let problems = try await store.check()
        #expect(problems == ["film 4: character_count is 99 but it has 2 characters", "category lamps: product_count is 5 but it has 1 products"])
    }
}
