import CatalogFixtures
import CatalogModel
import CatalogStore
import CatalogTestSupport
import GRDB
import Testing

@testable import PostgresStore
@testable import SQLiteStore

/// The frequent words' sets are a base that a read makes exact at its own snapshot: a write since the base is counted
/// and faceted by the very next read, while the base stays in use.
@Suite("Frequent words' sets under writes")
struct CurrentFrequentTermsTests {
    static let words = ["lamp", "desk", "chair", "oak", "zinc", "brass"]

    /// Inserts, updates of the words, of the category, of the stock alone, deletes, and a word written since the base
    /// that its prefix now also matches: after each, counts and facets are those of a reference, with no refresh; or,
    /// `advancing`, with the base brought forward after each (`FrequentTerms.advanced`), which must then hold what a
    /// whole read of the sets at that version holds.
    @Test(arguments: StoreBackend.available, [false, true])
    func aWriteIsCountedAndFacetedByTheNextRead(_ backend: StoreBackend, advancing: Bool) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        var random = SplitMix64(seed: 43)
        var rows: [String: Product] = [:]
        func product(_ key: String, words: [String]? = nil, category: String? = nil, stock: Int = 1) throws -> Product {
            let chosen = words ?? (0..<3).map { _ in Self.words.randomElement(using: &random) ?? "" }
            return Product(
                serialCode: key, name: chosen.joined(separator: " "),
                category: category ?? ["lighting", "office"].randomElement(using: &random) ?? "",
                brand: ["acme", "umbra", ""].randomElement(using: &random), price: try Price(parsing: "3"), stock: stock)
        }
        // Without `advancing`, the writes come through another store (a second process, a replica): a store's own
        // writes bring its sets forward on PostgreSQL (`advancedInWrite`), and the sets read here must stay the base.
        let writer = try await advancing ? store : temporary.openAnother()
        func write(_ products: [Product]) async throws {
            _ = try await writer.upsertProducts(products, author: "api")
            for product in products { rows[product.serialCode] = product }
        }
        try await write((0..<120).map { try product("P\($0)") })
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.2
        let base = try await store.refreshFrequentTerms(policy)
        #expect(base.terms.contains("lamp"))

        func compare(_ stage: String) async throws {
            if advancing { try await advance(stage) }
            for search in ["lamp ", "lamp desk ", "lamp", "la", "oak zinc ", "lampshade ", "lampsh"] {
                let typed = search.split(separator: " ").map(String.init)
                let wholeLast = search.hasSuffix(" ")
                let expected = rows.values.filter { product in
                    let tokens = product.name.split(separator: " ").map(String.init) + [product.category] + [product.brand ?? ""]
                    return typed.enumerated().allSatisfy { index, word in
                        index == typed.count - 1 && !wholeLast ? tokens.contains { $0.hasPrefix(word) } : tokens.contains(word)
                    }
                }
                let page = try await store.products(ProductFilter(search: search), page: PageRequest(pageSize: 5))
                #expect(page.count == expected.count, "\(stage): count of '\(search)'")
                let facets = try await store.productFacets(ProductFilter(search: search), fields: [.category, .brand], size: 10)
                for field in [ProductFacetField.category, .brand] {
                    var counts: [String: Int] = [:]
                    for product in expected {
                        let value = field == .category ? product.category : product.brand ?? ""
                        if !value.isEmpty { counts[value, default: 0] += 1 }
                    }
                    let found = Dictionary(uniqueKeysWithValues: (facets.counts.first { $0.0 == field }?.1 ?? []).map { ($0.value, $0.count) })
                    #expect(found == counts, "\(stage): \(field) facet of '\(search)'")
                }
            }
            let acme = try await store.products(ProductFilter(brand: "acme"), page: PageRequest(pageSize: 5))
            #expect(acme.count == rows.values.filter { $0.brand == "acme" }.count, "\(stage): count of brand acme")
        }

        /// Brings the base forward and compares it with a whole read at its version, then puts it back in use.
        func advance(_ stage: String) async throws {
            let version = try await store.currentVersions().products
            let advanced = try #require(try await store.advanceFrequentTerms(), "\(stage): brought forward")
            #expect(advanced.productsVersion == version && store.frequentTermsVersion == version, "\(stage): version")
            let whole = try await store.refreshFrequentTerms(policy)
            // SQLite numbers rows by rowid in both; PostgreSQL by place, which a whole read gives again from 0.
            let sameNumbers = store is SQLiteCatalogStore
            for term in whole.terms where advanced.terms.contains(term) {
                // The rank each row holds the word in: the same rows in each rank, or as many where the numbers differ.
                let largest = max(advanced.largestRowNumber, whole.largestRowNumber)
                let ranks = { (terms: FrequentTerms) in (0...largest).map { terms.ranking([term])?.rank(ofRow: $0) } }
                let (broughtRanks, readRanks) = (ranks(advanced), ranks(whole))
                if sameNumbers {
                    #expect(broughtRanks == readRanks, "\(stage): ranks of \(term)")
                } else {
                    let tally = { (ranks: [Int?]) in Dictionary(ranks.compactMap { $0 }.map { ($0, 1) }, uniquingKeysWith: +) }
                    #expect(tally(broughtRanks) == tally(readRanks), "\(stage): ranks of \(term)")
                }
                for filter in [
                    ProductFilter(search: term + " "), ProductFilter(category: "office", search: term + " "),
                    ProductFilter(brand: "acme", search: term + " "),
                ] {
                    let (brought, read) = (advanced.selection(filter, search: nil), whole.selection(filter, search: nil))
                    #expect(brought?.count == read?.count, "\(stage): count of \(filter)")
                    if sameNumbers { #expect(brought.map(Self.members) == read.map(Self.members), "\(stage): rows of \(filter)") }
                    for field in [ProductFacetField.category, .brand] {
                        let counts = { (terms: FrequentTerms, rows: RowNumberSet?) in rows.map { terms.facetValues(field, among: $0, size: 10) } }
                        #expect(counts(advanced, brought) == counts(whole, read), "\(stage): \(field) of \(filter)")
                    }
                }
            }
            // A typed prefix, spelled out as each spells it: the same count where both answer from their sets alone.
            for typed in ["l", "la", "de", "o", "zi"] {
                let filter = ProductFilter(search: typed)
                let query = try #require(filter.searchQuery)
                let answers = [advanced, whole].map { $0.selection(filter, search: $0.expanded(query))?.count }
                if let brought = answers[0], let read = answers[1] { #expect(brought == read, "\(stage): count of '\(typed)'") }
            }
            #expect(advanced.brandCount(ProductFilter(brand: "acme")) == whole.brandCount(ProductFilter(brand: "acme")), "\(stage): brand count")
            for search in ["lampshade ", "lampsh", "qqq "] {
                let query = try #require(ProductFilter(search: search).searchQuery)
                #expect(advanced.matchesNothing(query) == whole.matchesNothing(query), "\(stage): '\(search)' matches nothing")
            }
            if let sqlite = store as? SQLiteCatalogStore { sqlite.frequentTerms.install(advanced) }
            if let postgres = store as? PostgresCatalogStore { postgres.frequentTerms.install(advanced) }
        }

        try await compare("at the base")
        try await write([try product("N1", words: ["lamp", "oak"]), try product("N2", words: ["desk"])])
        try await compare("after inserts")
        try await write([try product("P1", words: ["zinc"]), try product("P2", words: ["lamp", "desk", "chair"])])
        try await compare("after updates of the words")
        if let moved = rows["P3"] {
            try await write([try product("P3", words: moved.name.split(separator: " ").map(String.init), category: "garden")])
        }
        try await compare("after a move to a new category")
        if var restocked = rows["P4"] {
            restocked.stock = 0
            try await write([restocked])
        }
        try await compare("after a change of stock alone")
        for key in ["P5", "N2"] {
            _ = try await writer.deleteProduct(serialCode: key, author: "api")
            rows[key] = nil
        }
        try await compare("after deletes")
        try await write([try product("N3", words: ["lampshade"]), try product("P5", words: ["lamp"])])
        try await compare("after a new word the typed prefix matches, and a key stored again")
        if advancing { return }
        #expect(store.frequentTermsVersion == base.productsVersion, "the base stayed in use")

        // The rows the reads took from the engine: P1, P2, P3, P4, P5 (its old row and its new), N1 and N3; N2 was
        // written and deleted since the base.
        var changed: Int?
        if let sqlite = store as? SQLiteCatalogStore {
            // The changes since the base are read along the history's key, however long the history.
            let plan = try await sqlite.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteCatalogStore.changesSince, arguments: [0, 1]).map { $0["detail"] as String }
                    .joined(separator: " ")
            }
            #expect(plan.contains("INTEGER PRIMARY KEY"), "\(plan)")
            changed = try await sqlite.read { db in
                try SQLiteCatalogStore.currentFrequentTerms(
                    sqlite.frequentTerms, for: ProductFilter(search: "lamp "), at: try StoreVersions.fetch(db), db)?
                    .changedRows.count
            }
        } else if let postgres = store as? PostgresCatalogStore {
            let logger = postgres.logger
            changed = try await postgres.transaction(.read) { connection in
                try await PostgresCurrentFrequentTerms.read(base, filter: ProductFilter(), searches: [], connection, logger: logger)
                    .terms?.current.changedRows.count
            }
        }
        #expect(changed == 8)
        // A read the sets answer nothing of reads no change since them: a filter of stock, or of a category alone.
        for filter in [ProductFilter(inStock: true, search: "lamp "), ProductFilter(inStock: true), ProductFilter(category: "office")] {
            #expect(!base.mayAnswer(filter), "\(filter)")
        }
        for filter in [ProductFilter(search: "lamp "), ProductFilter(search: "la"), ProductFilter(search: "qqq "), ProductFilter(brand: "acme")] {
            #expect(base.mayAnswer(filter), "\(filter)")
        }
    }

    /// A write by another store (a second process, a replica) is counted by the next read of a store whose sets were
    /// of the newest version until then, and by every read after it, before and after the sets are brought forward.
    @Test(arguments: StoreBackend.available)
    func aWriteByAnotherStoreIsCountedByTheNextRead(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        func lamps(_ keys: Range<Int>) throws -> [Product] {
            try keys.map { Product(serialCode: "L\($0)", name: "lamp \($0)", category: "lighting", brand: "acme", price: try Price(parsing: "3")) }
        }
        _ = try await store.upsertProducts(try lamps(0..<30), author: "api")
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.2
        _ = try await store.refreshFrequentTerms(policy)
        #expect(try await store.products(ProductFilter(search: "lamp "), page: PageRequest(pageSize: 5)).count == 30)
        let other = try await temporary.openAnother()
        _ = try await other.upsertProducts(try lamps(30..<33), author: "api")
        for _ in 0..<3 {
            let page = try await store.products(ProductFilter(search: "lamp "), page: PageRequest(pageSize: 5))
            #expect(page.count == 33)
            #expect(page.versions.products == (try await other.currentVersions()).products)
        }
        _ = try await store.advanceFrequentTerms()
        #expect(try await store.products(ProductFilter(search: "lamp "), page: PageRequest(pageSize: 5)).count == 33)
        _ = try await other.upsertProducts(try lamps(33..<34), author: "api")
        #expect(try await store.products(ProductFilter(search: "lamp "), page: PageRequest(pageSize: 5)).count == 34)
        try await other.close()
    }

    /// Once the history since the sets is pruned, the changes since them cannot be listed: a read is answered by the
    /// engine alone, and is exact all the same.
    /// On PostgreSQL a write brings the sets of the store it is written through forward in its own transaction, so
    /// that the reads of that store never find them behind it; sets of the same whole read brought less far are then
    /// not installed over them. On SQLite, whose reads find the changes since the sets in their own process, the
    /// sets stay as they were until FrequentTermsService brings them forward.
    @Test(arguments: StoreBackend.available)
    func aWriteBringsForwardTheSetsOfItsOwnStoreOnPostgreSQL(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        let lamps = try (0..<30).map {
            Product(serialCode: "L\($0)", name: "lamp \($0)", category: "lighting", brand: "acme", price: try Price(parsing: "3"))
        }
        _ = try await store.upsertProducts(lamps, author: "api")
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.2
        let base = try await store.refreshFrequentTerms(policy)
        let desk = Product(serialCode: "D1", name: "lamp desk", category: "office", brand: "umbra", price: try Price(parsing: "5"))
        _ = try await store.upsertProducts([desk], author: "api")
        _ = try await store.deleteProduct(serialCode: "L0", author: "api")
        let version = try await store.currentVersions().products
        guard let postgres = store as? PostgresCatalogStore else {
            #expect(store.frequentTermsVersion == base.productsVersion)
            return
        }
        #expect(postgres.frequentTermsVersion == version)
        let installed = try #require(postgres.frequentTerms.latest)
        #expect(installed.selection(ProductFilter(search: "lamp "), search: nil)?.count == 30)
        #expect(installed.selection(ProductFilter(brand: "umbra", search: "lamp "), search: nil)?.count == 1)
        postgres.frequentTerms.install(base)
        #expect(postgres.frequentTermsVersion == version, "the base is not installed over the sets brought forward from it")
    }

    @Test(arguments: StoreBackend.available)
    func aReadAfterTheHistorySinceTheSetsWasPrunedIsExact(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        func lamps(_ keys: Range<Int>, brand: String) throws -> [Product] {
            try keys.map { Product(serialCode: "L\($0)", name: "lamp \($0)", category: "lighting", brand: brand, price: try Price(parsing: "3")) }
        }
        _ = try await store.upsertProducts(try lamps(0..<30, brand: "acme"), author: "api")
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.2
        let base = try await store.refreshFrequentTerms(policy)
        #expect(base.terms.contains("lamp"))
        _ = try await store.upsertProducts(try lamps(30..<35, brand: "umbra"), author: "api")
        try await temporary.executeRaw("UPDATE changes SET at = '2020-01-01T00:00:00Z'", [])
        #expect(try await store.pruneHistory(before: "2023-01-01T00:00:00Z") == 34)
        for _ in 0..<2 {
            #expect(try await store.products(ProductFilter(search: "lamp "), page: PageRequest(pageSize: 5)).count == 35)
            let facets = try await store.productFacets(ProductFilter(search: "lamp "), fields: [.brand], size: 10)
            let brands = (facets.counts.first { $0.0 == .brand }?.1 ?? []).map { "\($0.value) \($0.count)" }
            #expect(brands == ["acme 30", "umbra 5"])
        }
    }

    static func members(_ rows: RowNumberSet) -> [Int] {
        var members: [Int] = []
        rows.forEach { members.append($0) }
        return members
    }
}
