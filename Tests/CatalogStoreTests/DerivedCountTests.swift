import CatalogFixtures
import CatalogModel
import CatalogStore
import CatalogTestSupport
import GRDB
import Testing

@Suite("Derived counts")
struct DerivedCountTests {
    /// Recounts every derived count with SQL and compares it with the stored one; returns the mismatches.
    func mismatches(_ queue: DatabaseQueue) throws -> [String] {
        try queue.read { db in
            var problems: [String] = []
            for (kind, column) in [
                ("characters", "character_count"), ("planets", "planet_count"), ("starships", "starship_count"), ("vehicles", "vehicle_count"),
                ("species", "species_count"),
            ] {
                problems += try String.fetchAll(
                    db,
                    sql: """
                        SELECT 'film ' || episode_id || ' ' || '\(column)' FROM films f
                        WHERE \(column) != (SELECT COUNT(*) FROM film_links l WHERE l.episode_id = f.episode_id AND l.kind = '\(kind)')
                        """)
            }
            problems += try String.fetchAll(
                db,
                sql: """
                    SELECT 'category ' || c.name FROM categories c
                    WHERE c.product_count != (SELECT COUNT(*) FROM products p WHERE p.category = c.name)
                    UNION ALL SELECT 'missing category ' || category FROM products WHERE category NOT IN (SELECT name FROM categories)
                    UNION ALL SELECT 'empty category ' || name FROM categories WHERE product_count <= 0
                    """)
            return problems
        }
    }

    @Test func randomBatchesThroughTheStoreAndRawSQLKeepEveryCountTrue() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let raw = try temporary.rawQueue()
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
                try await raw.write { db in
                    try db.execute(sql: "UPDATE products SET category = ? WHERE serial_code = ?", arguments: [target, "P\(moved)"])
                    try db.execute(sql: "DELETE FROM products WHERE serial_code = ?", arguments: ["P\(deleted)"])
                    try db.execute(sql: "DELETE FROM film_links WHERE episode_id = ? AND position = 0", arguments: [film])
                    try db.execute(
                        sql:
                            "UPDATE film_links SET kind = 'planets', position = 1000 + position WHERE episode_id = ? AND kind = 'characters' AND position = 1",
                        arguments: [film])
                }
            }
            let problems = try mismatches(raw)
            #expect(problems.isEmpty, "batch \(batch): \(problems)")
        }
        let productCount = try await raw.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM products") ?? 0 }
        #expect(productCount > 0)
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

    @Test func checkNamesTheFilmAndCategoryWhoseCountWasTamperedWith() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts([try product("A", category: "lamps")], author: "api")
        _ = try await store.upsertFilms(
            [Film(episodeID: 4, title: "t", releaseDate: "1977-05-25", links: [.characters: ["x", "y"]])], author: "api")
        let healthy = try await store.check()
        #expect(healthy.isEmpty)
        try await temporary.rawQueue().write { db in
            try db.execute(sql: "UPDATE films SET character_count = 99 WHERE episode_id = 4")
            try db.execute(sql: "UPDATE categories SET product_count = 5 WHERE name = 'lamps'")
        }
        let problems = try await store.check()
        #expect(problems == ["film 4: character_count is 99 but it has 2 characters", "category lamps: product_count is 5 but it has 1 products"])
    }
}
