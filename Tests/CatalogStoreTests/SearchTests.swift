import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing

@testable import PostgresStore
@testable import SQLiteStore

@Suite("Full-text search")
struct SearchTests {
    @Test func searchTextBecomesWordsPhrasesAndATypedPrefix() {
        #expect(SearchQuery("desk lamp").parts == [.word("desk"), .prefix("lamp")])
        #expect(SearchQuery("desk lamp ").parts == [.word("desk"), .word("lamp")])
        #expect(SearchQuery("\"desk lamp\" café").parts == [.phrase(["desk", "lamp"]), .prefix("café")])
        #expect(SearchQuery("\"lamp\"").parts == [.word("lamp")])
        // Operators of either engine are separators or plain words; an unbalanced quote separates.
        #expect(SearchQuery("desk AND lamp*").parts == [.word("desk"), .word("AND"), .word("lamp")])
        #expect(SearchQuery("\"desk -lamp:a NEAR(x)").parts == [.word("desk"), .word("lamp"), .word("a"), .word("NEAR"), .word("x")])
        #expect(SearchQuery("*:-\"()^").matchesNothing)
        #expect(SearchQuery("").matchesNothing)
        #expect(SearchQuery(String(repeating: "a ", count: 40)).parts.count == SearchQuery.maximumParts)
    }

    /// Each engine folds every Latin letter with diacritics to its base letter, and keeps the others: a document
    /// holding all of them is found by the base letters, and by none of the kept ones folded.
    @Test(arguments: StoreBackend.available) func latinLettersFoldToTheirBaseLetter(_ backend: StoreBackend) async throws {
        let table = SearchReference.foldingTable
        #expect(table["é"] == "e" && table["É"] == "e" && table["ñ"] == "n" && table["ǖ"] == "u" && table["ệ"] == "e")
        #expect(table["ø"] == nil && table["ß"] == nil && table["æ"] == nil && table["Ǆ"] == nil && table["Ǡ"] == nil)
        #expect(table.count > 400)
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let letters = SearchReference.latinLetters
        _ = try await temporary.store.upsertProducts(
            try letters.enumerated().map { index, pair in
                Product(serialCode: "L\(index)", name: "x\(pair.letter)x", category: "c", price: try Price(parsing: "1"))
            }
                + ["Ǡ", "ǡ", "ø", "ß", "æ", "Ǆ"].map { kept in
                    Product(serialCode: "K\(kept)", name: "x\(kept)x", category: "c", price: try Price(parsing: "1"))
                }, author: "api")
        for base in Set(letters.map(\.base)).sorted() {
            let found = try await temporary.store.products(ProductFilter(search: "x\(base)x "), page: PageRequest(pageSize: 1000))
            let expected = letters.enumerated().filter { $0.element.base == base }.map { "L\($0.offset)" }
            let foundKeys = Set(found.rows.map(\.product.serialCode))
            let missing = letters.enumerated().filter { !foundKeys.contains("L\($0.offset)") && $0.element.base == base }.map {
                String($0.element.letter)
            }
            let extra = letters.enumerated().filter { foundKeys.contains("L\($0.offset)") && $0.element.base != base }.map {
                String($0.element.letter)
            }
            #expect(foundKeys == Set(expected), "folded to \(base): missing \(missing.joined()), extra \(extra.joined())")
        }
    }

    /// The cases a person types, on each engine: accents, any order, whole words, a prefix as typed, a phrase.
    @Test(arguments: StoreBackend.available) func searchesMatchAsPeopleExpect(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts(
            [
                Product(serialCode: "A", name: "Desk lamp", category: "lighting", price: try Price(parsing: "1")),
                Product(serialCode: "B", name: "Lamp for a desk", category: "lighting", price: try Price(parsing: "1")),
                Product(serialCode: "C", name: "Café crème", category: "food", price: try Price(parsing: "1")),
                Product(serialCode: "D", name: "CAFÉ NOIR", category: "food", price: try Price(parsing: "1")),
                Product(serialCode: "E", name: "Desklamp", category: "lighting", price: try Price(parsing: "1")),
                Product(serialCode: "F", name: "Chair", description: "goes with a desk lamp", category: "seating", price: try Price(parsing: "1")),
            ], author: "api")
        func keys(_ text: String) async throws -> [String] {
            try await store.products(ProductFilter(search: text), page: PageRequest(pageSize: 100)).rows.map(\.product.serialCode)
        }
        #expect(try await keys("cafe") == ["C", "D"])
        #expect(try await keys("CAFÉ ") == ["C", "D"])
        #expect(try await keys("lamp desk ") == ["A", "B", "F"])
        #expect(try await keys("lam") == ["A", "B", "F"])
        #expect(try await keys("\"desk lamp\"") == ["A", "F"])
        #expect(try await keys("desklamp ") == ["E"])
        #expect(try await keys("crème brûlée") == [])
        for typed in ["AND", "NEAR(desk lamp)", "*", ":", "-desk", "\"desk", "desk\" OR \"", "lamp:*", "^lamp", "'; DROP TABLE products; --", "%_\\"]
        {
            _ = try await keys(typed)
        }
        #expect(try await keys("-desk").sorted() == ["A", "B", "E", "F"])
        #expect(try await keys("?!").isEmpty)
        let categories = try await store.categories(CategoryFilter(search: "LIGHT"), page: PageRequest()).rows.map(\.name)
        #expect(categories == ["lighting"])
        _ = try await store.upsertFilms(
            [
                Film(episodeID: 1, title: "Le retour", openingCrawl: "Une galaxie très lointaine", director: "Zoë", releaseDate: "1980-01-01"),
                Film(episodeID: 2, title: "Très loin", director: "Ann", releaseDate: "1981-01-01"),
            ], author: "api")
        let films = try await store.films(FilmFilter(search: "tres"), page: PageRequest()).rows.map(\.film.episodeID)
        #expect(films == [2, 1])
        #expect(try await store.films(FilmFilter(search: "zoe "), page: PageRequest()).rows.map(\.film.episodeID) == [1])
    }

    /// A match in the name ranks above one in the brand, above one in the description; ties by key. Any other
    /// ordering still applies, and relevance needs a search.
    @Test(arguments: StoreBackend.available) func theBestMatchComesFirst(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        func item(_ key: String, name: String, brand: String? = nil, description: String = "", price: String) throws -> Product {
            Product(serialCode: key, name: name, description: description, category: "c", brand: brand, price: try Price(parsing: price))
        }
        _ = try await store.upsertProducts(
            [
                try item("A", name: "Chair", description: "a lamp beside it", price: "1"),
                try item("B", name: "Shade", brand: "Lamp Co", price: "2"),
                try item("C", name: "Lamp", price: "3"),
                try item("D", name: "Table", price: "4"),
                try item("E", name: "Floor lamp", description: "lamp lamp lamp", price: "5"),
            ], author: "api")
        let ranked = try await store.products(ProductFilter(search: "lamp"), page: PageRequest()).rows.map(\.product.serialCode)
        #expect(ranked == ["C", "E", "B", "A"])
        let named = try await store.products(ProductFilter(search: "lamp"), page: PageRequest(ordering: "relevance")).rows.map(\.product.serialCode)
        #expect(named == ranked)
        let byPrice = try await store.products(ProductFilter(search: "lamp"), page: PageRequest(ordering: "-price")).rows.map(\.product.serialCode)
        #expect(byPrice == ["E", "C", "B", "A"])
        // Without a search, relevance is the list's own ordering.
        let all = try await store.products(ProductFilter(), page: PageRequest(ordering: "relevance")).rows.map(\.product.serialCode)
        #expect(all == ["A", "B", "C", "D", "E"])
        let reversed = try await store.products(ProductFilter(), page: PageRequest(ordering: "-relevance")).rows.map(\.product.serialCode)
        #expect(reversed == ["E", "D", "C", "B", "A"])
        // A cursor made by hand with a rank the search does not have names no page.
        for position: Int64 in [3 << 48, Int64.max, -1] {
            let cursor = ListCursor(ordering: "relevance", direction: .next, sortValue: .integer(position), key: .text("A")).encoded()
            await #expect(throws: UnknownCursor.self) {
                try await store.products(ProductFilter(search: "lamp"), page: PageRequest(ordering: "relevance", cursor: cursor))
            }
        }
        let worstFirst = try await store.products(ProductFilter(search: "lamp"), page: PageRequest(ordering: "-relevance"))
        #expect(worstFirst.rows.map(\.product.serialCode) == ranked.reversed())
    }

    /// A read right after a write, with the sets still of the version before it, counts what the write changed: the
    /// sets made exact at the read's snapshot count it (`CurrentFrequentTerms`). On PostgreSQL every ranked page of a
    /// word with a set is first read from its best rank (`sortedMatchLimit` 0).
    @Test(arguments: StoreBackend.available) func theFirstReadsAfterAWriteCountIt(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        var store = temporary.store
        if var postgres = store as? PostgresCatalogStore {
            // No ranked page read by the statement of few matches, which counts its matches itself: every count here
            // is the one the store gives the page, from the sets or the engine.
            postgres.searchPlanner.fewMatchLimit = 0
            postgres.searchPlanner.sortedMatchLimit = 0
            postgres.searchPlanner.wholeWordMatchLimit = 0
            store = postgres
        }
        func item(_ key: String, name: String) throws -> Product {
            Product(serialCode: key, name: name, description: "", category: "c", brand: "b", price: try Price(parsing: "1"))
        }
        _ = try await store.upsertProducts((0..<6).map { try item("K\($0)", name: $0 < 4 ? "desk lamp" : "chair") }, author: "api")
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.5
        // A word followed by a space is a whole word, which the sets count; the last case is a typed prefix.
        let cases: [(search: String?, brand: String?, ordering: String?, before: Int, after: Int)] = [
            ("lamp ", nil, nil, 4, 5), (nil, "b", nil, 7, 8), ("lamp ", "b", nil, 6, 7), ("lamp ", nil, "-relevance", 7, 8),
            ("desk lamp ", nil, nil, 4, 4), ("lam", nil, nil, 9, 10),
        ]
        for (written, (search, brand, ordering, before, after)) in cases.enumerated() {
            let terms = try await store.refreshFrequentTerms(policy)
            #expect(terms.terms.contains("lamp"))
            let filter = ProductFilter(brand: brand, search: search)
            let current = try await store.products(filter, page: PageRequest(ordering: ordering, pageSize: 2)).count
            #expect(current == before, "\(search ?? "-") of brand \(brand ?? "-"), before the write")
            _ = try await store.upsertProducts([try item("N\(written)", name: "lamp")], author: "api")
            let page = try await store.products(filter, page: PageRequest(ordering: ordering, pageSize: 2))
            #expect(page.count == after, "\(search ?? "-") of brand \(brand ?? "-"), after the write")
        }
    }

    /// A word with a set beside one without (a common word with a selective one) is read from the other's matches
    /// (`SearchLead`, `SearchRead.wordEntries`) on both engines: the same pages, ranks and count as the reference, at
    /// the sets' version and after writes since them, whose rows the sets cannot tell of and the engine ranks (a
    /// word moved from a name to a description, a row stored since, a row deleted, a row stored in a deleted one's
    /// rowid).
    @Test(arguments: StoreBackend.available) func aCommonWordWithASelectiveOneIsReadFromTheSelectiveOne(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        let written = WrittenProducts(store)
        func item(_ index: Int, lampIn: Int?, cafeIn: Int?) throws -> Product {
            var fields = ["plain", "", "plain"]
            if let lampIn { fields[lampIn] += " lamp" }
            if let cafeIn { fields[cafeIn] += " café" }
            return Product(
                serialCode: "K\(1000 + index)", name: fields[0], description: fields[2], category: "c", brand: fields[1],
                price: try Price(parsing: "1"))
        }
        // Four rows in five hold "lamp", in every field; one in ten "café", in every field.
        try await written.write(try (0..<200).map { try item($0, lampIn: $0 % 5 == 4 ? nil : $0 % 3, cafeIn: $0 % 10 == 0 ? ($0 / 10) % 3 : nil) })
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.2
        let terms = try await store.refreshFrequentTerms(policy)
        #expect(terms.terms.contains("lamp") && !terms.terms.contains("cafe"))
        func expectLedPages(_ stage: String) async throws {
            for search in ["lamp cafe ", "cafe lamp ", "lamp ca"] {
                let expected = written.matches(search)
                #expect(expected.count > 4, "\(stage): '\(search)' has pages")
                let first = try await store.products(ProductFilter(search: search), page: PageRequest(pageSize: 4))
                #expect(first.searchRead == .wordEntries, "\(stage): '\(search)' read from its lead")
                try await Self.expectWalk(store, ProductFilter(search: search), pageSize: 4, expected: expected, "\(stage): '\(search)'")
            }
        }
        try await expectLedPages("at the sets' version")
        try await written.write([
            try item(0, lampIn: 2, cafeIn: 0), try item(10, lampIn: nil, cafeIn: 0), try item(4, lampIn: 0, cafeIn: 1),
            try item(500, lampIn: 0, cafeIn: 0), try item(20, lampIn: 1, cafeIn: 2),
        ])
        // K1500, stored last, holds the largest rowid, which SQLite gives the next row stored once it is deleted.
        for key in ["K1030", "K1500"] { try await written.delete(key) }
        try await written.write([try item(600, lampIn: 1, cafeIn: 0)])
        try await expectLedPages("after writes since the sets")
    }

    /// A typed prefix reads found wide gets sets of its own (`FrequentTermShelf.ask`), added when the sets are brought
    /// forward, and its pages are then read from them (`SearchLead.matchesFromSets`) on both engines: the same pages,
    /// ranks and count as the reference at the sets' version, after writes since them (whose rows the engine ranks),
    /// and once the sets are brought forward past those writes.
    @Test(arguments: StoreBackend.available) func aTypedPrefixFoundWideIsReadFromSetsOfItsOwn(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        let shelf = try #require((store as? SQLiteCatalogStore)?.frequentTerms ?? (store as? PostgresCatalogStore)?.frequentTerms)
        let written = WrittenProducts(store)
        let words = ["cable", "cart", "cat", "plain", "oak", "café"]
        func item(_ index: Int) throws -> Product {
            let pick = { (offset: Int) in words[(index * 7 + offset * 3) % words.count] }
            return Product(
                serialCode: "W\(1000 + index)", name: "\(pick(0)) \(index % 4 == 0 ? pick(1) : "plain")",
                description: index % 3 == 0 ? pick(2) : "", category: "c", brand: index % 5 == 0 ? pick(3) : "b",
                price: try Price(parsing: "1"))
        }
        // Rows that hold "plain" in a worse rank than the prefix: they rank by the worse.
        let described = try (0..<6).map { index in
            Product(serialCode: "D\(index)", name: "cart oak", description: "plain", category: "c", brand: "b", price: try Price(parsing: "1"))
        }
        try await written.write(try (0..<150).map(item) + described)
        // "plain", which most names hold, has a set; no word "ca" starts does.
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.5
        _ = try await store.refreshFrequentTerms(policy)
        shelf.ask(SearchQuery("ca"), matches: FrequentTerms.widePrefixMatches)
        #expect(store.frequentTermsWanted)
        let advanced = try #require(try await store.advanceFrequentTerms())
        #expect(advanced.holdsPrefix("ca") && !store.frequentTermsWanted)
        func expectPages(_ stage: String) async throws {
            let expected = written.matches("ca")
            #expect(expected.count > 8, "\(stage): pages")
            let first = try await store.products(ProductFilter(search: "ca"), page: PageRequest(pageSize: 4))
            #expect(first.searchRead == .wordEntries, "\(stage): read from the prefix's sets")
            try await Self.expectWalk(store, ProductFilter(search: "ca"), pageSize: 4, expected: expected, "\(stage): 'ca'")
            // Led by the prefix, the other word told by its set: a row ranks by the worse of the two.
            let led = try await store.products(ProductFilter(search: "plain ca"), page: PageRequest(pageSize: 4))
            #expect(led.searchRead == .wordEntries, "\(stage): 'plain ca' read from the prefix's sets")
            let ledExpected = written.matches("plain ca")
            #expect(ledExpected.count > 4 && ledExpected.count < expected.count, "\(stage): 'plain ca' drops rows")
            try await Self.expectWalk(store, ProductFilter(search: "plain ca"), pageSize: 4, expected: ledExpected, "\(stage): 'plain ca'")
        }
        try await expectPages("at the sets' version")
        var moved = try item(4)
        (moved.name, moved.description) = ("plain", "cart")
        try await written.write([try item(200), try item(3), moved])
        try await written.delete("W1006")
        try await expectPages("after writes since the sets")
        _ = try #require(try await store.advanceFrequentTerms())
        try await expectPages("brought forward past the writes")
    }

    /// Each engine's search against a brute-force reading of the rules, over generated rows with accents,
    /// punctuation and repeated words, through inserts, updates, deletes and an import: the same members, in the
    /// same ranked order, walked page by page forwards and back, with an exact count.
    @Test(arguments: StoreBackend.available) func eachEngineMatchesTheReference(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        try await Self.matchTheReference(temporary.store)
    }

    /// With sets for the words a fifth of the rows hold, a search of them is counted and faceted from the sets, made
    /// exact at each read's snapshot by the changes since them.
    @Test(arguments: StoreBackend.available) func eachEngineMatchesTheReferenceThroughFrequentTermSets(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.2
        try await Self.matchTheReference(temporary.store, frequentTerms: policy)
    }

    /// PostgreSQL reads a ranked page of few matches in one statement, and one of many along the search's ranks, in
    /// several: with no match sorted at once, every search here is walked.
    @Test func postgresWalkingTheRanksMatchesTheReference() async throws {
        try await Self.postgresMatchesTheReference(fewMatchLimit: 0, wholeWordMatchLimit: 0)
    }

    /// PostgreSQL reads a typed prefix's page outside a transaction, its runs and then its rows, each statement on a
    /// snapshot of its own: a write between them has the page read again in a transaction. 60 pages read while rows are
    /// deleted and stored again are each whole, counted at one version. (Kept whatever the versions said, a page whose
    /// runs named a row deleted before its rows were read failed.)
    @Test func postgresPrefixPagesReadWhileRowsComeAndGoAreWhole() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        let store = temporary.store
        let products = try (0..<40).map { index in
            Product(serialCode: "C\(index)", name: "cab\(index) x", description: "", category: "c", brand: "b", price: try Price(parsing: "1"))
        }
        _ = try await store.upsertProducts(products, author: "api")
        // Counted, not timed: a loaded machine makes as many reads, only slower. The writer stops once they are done,
        // and rests between writes so as not to load the machine the other suites share.
        let readsDone = RecordedLines()
        let writer = Task {
            var writes = 0
            while readsDone.all.isEmpty, writes < 2_000 {
                let product = products[writes % products.count]
                _ = try await store.deleteProduct(serialCode: product.serialCode, author: "api")
                _ = try await store.upsertProducts([product], author: "api")
                writes += 1
                try await Task.sleep(for: .milliseconds(2))
            }
            return writes
        }
        for _ in 0..<60 {
            let page = try await store.products(ProductFilter(search: "cab"), page: PageRequest(pageSize: 40))
            #expect(page.searchRead == .wordEntries, "read from the prefix's runs")
            #expect(page.count == 39 || page.count == 40, "counted at one version: \(page.count)")
            #expect(page.rows.count == page.count, "every row the count holds: \(page.rows.count) of \(page.count)")
        }
        readsDone.append("done")
        let writes = try await writer.value
        #expect(writes > 0, "rows were deleted and stored again while the pages were read")
    }

    /// With a handful of matches as the most one statement reads, a search in a category is read in each of the
    /// statement's placements of its filter: on the search's matches when the search alone has few, in its
    /// conditions when it has more but the category few, and walked when both have more.
    @Test func postgresEachPlacementOfTheFiltersMatchesTheReference() async throws {
        guard let sizes = try await Self.postgresMatchesTheReference(fewMatchLimit: 6) else { return }
        #expect(sizes.contains { $0.search <= 6 && $0.inCategory > 0 })
        #expect(sizes.contains { $0.search > 6 && (1...6).contains($0.inCategory) })
        #expect(sizes.contains { $0.inCategory > 6 })
    }

    /// With the sets telling that every search of their words has more matches than are sorted at once, PostgreSQL
    /// reads a first page of such a search from its best rank alone, in one statement with the sets' count, and
    /// walks the ranks when that rank holds less than a page or the sets are of another version than the read's.
    @Test func postgresReadsAFirstPageOfManyMatchesFromItsBestRank() async throws {
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.2
        try await Self.postgresMatchesTheReference(fewMatchLimit: 0, sortedMatchLimit: 0, wholeWordMatchLimit: 0, frequentTerms: policy)
    }

    /// `matchTheReference` on PostgreSQL with `fewMatchLimit`, `sortedMatchLimit` and `wholeWordMatchLimit`; nil
    /// without a PostgreSQL server.
    @discardableResult
    static func postgresMatchesTheReference(
        fewMatchLimit: Int, sortedMatchLimit: Int = SearchPlanner.sortedMatches,
        wholeWordMatchLimit: Int = SearchPlanner.wholeWordMatches, frequentTerms: FrequentTermPolicy? = nil
    ) async throws -> [(search: Int, inCategory: Int)]? {
        guard StoreBackend.available.contains(.postgres) else { return nil }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        var store = try #require(temporary.store as? PostgresCatalogStore)
        store.searchPlanner.fewMatchLimit = fewMatchLimit
        store.searchPlanner.sortedMatchLimit = sortedMatchLimit
        store.searchPlanner.wholeWordMatchLimit = wholeWordMatchLimit
        return try await Self.matchTheReference(store, frequentTerms: frequentTerms)
    }

    /// `store`'s search against the reference (`eachEngineMatchesTheReference`), alone and in a category; returns the
    /// number of matches of each search it compared, alone and in the category.
    @discardableResult
    /// With `frequentTerms`, each stage is compared twice: with the sets of the stage before (of another version, made
    /// exact by the changes since), then with sets read again, which must hold the most frequent words.
    static func matchTheReference(_ store: any CatalogStore, frequentTerms: FrequentTermPolicy? = nil) async throws -> [(
        search: Int, inCategory: Int
    )] {
        var sizes: [(search: Int, inCategory: Int)] = []
        var random = SplitMix64(seed: 2026)
        var rows: [String: Product] = [:]
        // Ties are in the order rows were first stored: a row deleted and stored again comes last.
        var stored: [String: Int] = [:]
        var storedSoFar = 0
        func remember(_ product: Product) {
            if rows[product.serialCode] == nil {
                storedSoFar += 1
                stored[product.serialCode] = storedSoFar
            }
            rows[product.serialCode] = product
        }
        func generated(_ key: String) throws -> Product {
            func text(_ count: ClosedRange<Int>) -> String {
                (0..<Int.random(in: count, using: &random)).map { _ in SearchReference.vocabulary.randomElement(using: &random) ?? "" }
                    .joined(separator: " ")
            }
            return Product(
                serialCode: key, name: text(1...4), description: text(0...8),
                category: ["lamp", "Bureau", "café"].randomElement(using: &random) ?? "",
                // The price follows the key, so that the generated words stay as they were.
                brand: Bool.random(using: &random) ? text(1...2) : nil, price: try Price(parsing: "\((Int(key.dropFirst()) ?? 0) % 5 + 1)"))
        }
        func write(_ products: [Product]) async throws {
            _ = try await store.upsertProducts(products, author: "api")
            for product in products { remember(product) }
        }
        /// Walks every page of `filter` forwards, then back from the last, against `expected`.
        func walk(_ filter: ProductFilter, expected: [String], _ name: String) async throws {
            try await Self.expectWalk(store, filter, pageSize: 4, expected: expected, name)
        }
        func compare(_ stage: String) async throws {
            try await compareOnce(stage)
            guard let frequentTerms else { return }
            let terms = try await store.refreshFrequentTerms(frequentTerms)
            #expect(store.frequentTermsVersion == terms.productsVersion)
            #expect(Set(["lamp", "desk"]).isSubset(of: terms.terms), "\(stage): \(terms.terms)")
            try await compareOnce("\(stage), with frequent terms \(terms.terms)")
            // A search that matches nothing is answered without reading a page, its request still checked as a page's.
            func failure(_ search: String, _ request: PageRequest) async -> String {
                do {
                    _ = try await store.products(ProductFilter(search: search), page: request)
                    return "none"
                } catch {
                    return "\(type(of: error))"
                }
            }
            let foreign = try await store.products(ProductFilter(), page: PageRequest(ordering: "name", pageSize: 1)).nextCursor
            for request in [PageRequest(ordering: "colour"), PageRequest(cursor: foreign)] {
                let (empty, read) = (await failure("zzqqxx ", request), await failure("desk ", request))
                #expect(empty == read && empty != "none", "\(stage): \(request)")
            }
        }
        func compareOnce(_ stage: String) async throws {
            // A brand's count, alone, in a category and in a price range, comes from the columns beside the sets when
            // they are read.
            let (lowest, highest) = (try Price(parsing: "2"), try Price(parsing: "4"))
            for brand in Set(rows.values.compactMap(\.brand)).sorted().prefix(4) + ["no such brand"] {
                for category in [nil, "café", "no such category"] {
                    for priced in [false, true] {
                        let expected = rows.values.filter {
                            $0.brand == brand && (category == nil || $0.category == category)
                                && (!priced || (lowest.micros...highest.micros).contains($0.price.micros))
                        }.count
                        let filter = ProductFilter(
                            category: category, brand: brand, minimumPrice: priced ? lowest : nil, maximumPrice: priced ? highest : nil)
                        let page = try await store.products(filter, page: PageRequest(pageSize: 2))
                        #expect(page.count == expected, "\(stage): brand '\(brand)' in \(category ?? "every category"), priced: \(priced)")
                    }
                }
            }
            for query in SearchReference.queries {
                let parsed = SearchQuery(query)
                let expected = rows.values.compactMap { product in
                    SearchReference.rank(parsed, product).map { ($0, stored[product.serialCode] ?? 0, product.serialCode) }
                }
                .sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
                try await walk(ProductFilter(search: query), expected: expected, "\(stage): '\(query)'")
                let inCategory = expected.filter { rows[$0]?.category == "café" }
                try await walk(ProductFilter(category: "café", search: query), expected: inCategory, "\(stage): '\(query)' in café")
                sizes.append((expected.count, inCategory.count))
                let facets = try await store.productFacets(ProductFilter(search: query), fields: [.category, .brand], size: 50)
                for (field, values) in facets.counts {
                    var tally: [String: Int] = [:]
                    for key in expected {
                        let value = field == .category ? rows[key]?.category : rows[key]?.brand
                        if let value, !value.isEmpty { tally[value, default: 0] += 1 }
                    }
                    #expect(Dictionary(uniqueKeysWithValues: values.map { ($0.value, $0.count) }) == tally, "\(stage): \(field) of '\(query)'")
                    #expect(values.map(\.count) == values.map(\.count).sorted(by: >), "\(stage): \(field) of '\(query)'")
                }
            }
        }
        try await write(try (0..<60).map { try generated("P\($0 < 10 ? "0" : "")\($0)") })
        try await compare("inserted")
        try await write(try (0..<60).filter { $0 % 4 == 0 }.map { try generated("P\($0 < 10 ? "0" : "")\($0)") })
        for key in ["P01", "P13", "P22"] {
            _ = try await store.deleteProduct(serialCode: key, author: "api")
            rows[key] = nil
        }
        try await compare("updated and deleted")
        // An import writes the rows it lists and, from its second run, deletes those of its feed it no longer lists;
        // rows written through the API stay.
        var imported: Set<String> = []
        func runImport(_ listing: [Product]) async throws {
            try await Self.importListing(listing, into: store)
            for key in imported.subtracting(listing.map(\.serialCode)) { rows[key] = nil }
            for product in listing { remember(product) }
            imported = Set(listing.map(\.serialCode))
        }
        let listing = try (0..<70).filter { $0 % 5 != 0 }.map { index in
            let key = "P\(index < 10 ? "0" : "")\(index)"
            if index % 3 != 0, let kept = rows[key] { return kept }
            return try generated(key)
        }
        try await runImport(listing)
        try await compare("imported")
        try await runImport(
            try listing.enumerated().filter { $0.offset % 4 != 1 }.map { $0.offset % 3 == 0 ? try generated($0.element.serialCode) : $0.element })
        try await compare("imported again")
        #expect(try await store.check().isEmpty)
        return sizes
    }
}

extension SearchTests {
    /// Runs an import of `listing`, as the importer does.
    /// Walks every page of `filter` forwards, then back from the last, expecting `expected` and its count.
    static func expectWalk(
        _ store: some CatalogStore, _ filter: ProductFilter, pageSize: Int, expected: [String], _ name: String
    ) async throws {
        var walked: [String] = []
        var request = PageRequest(pageSize: pageSize)
        var last: Page<[ProductRow]>?
        for _ in 0..<1_000 {
            let page = try await store.products(filter, page: request)
            #expect(page.count == expected.count, "count of \(name)")
            walked += page.rows.map(\.product.serialCode)
            last = page
            guard let next = page.nextCursor else { break }
            request.cursor = next
        }
        #expect(walked == expected, "\(name)")
        request.cursor = last?.previousCursor
        var back = last?.rows.map(\.product.serialCode).reversed() ?? []
        for _ in 0..<1_000 {
            guard request.cursor != nil else { break }
            let page = try await store.products(filter, page: request)
            back += page.rows.map(\.product.serialCode).reversed()
            request.cursor = page.previousCursor
        }
        #expect(back == expected.reversed(), "\(name) walked back")
    }

    static func importListing(_ listing: [Product], into store: any CatalogStore) async throws {
        guard case .claimed(let claim) = try await store.claimImport(of: .products) else {
            throw ForeignImportPart("import claim", store: "a store whose products claim was refused")
        }
        let staging = try await store.makeStaging()
        _ = try await staging.stage(listing.enumerated().map { ($0.offset, $0.element) })
        _ = try await store.completeImport(
            try await store.beginImport(source: .products), listing: CompletedListing(records: .stagedProducts(staging), pages: []),
            under: claim)
        await claim.release()
    }

    /// A second import of the same listing writes no row, and so not a byte of the search index.
    @Test func anUnchangedImportWritesNothingToTheSearchIndex() async throws {
        let temporary = try await TestStore.open(.sqlite)
        defer { temporary.remove() }
        let listing = try (0..<200).map { index in
            Product(
                serialCode: "K\(index)", name: "lamp \(index)", description: "café crème \(index % 7)", category: "c\(index % 3)",
                price: try Price(parsing: "1"))
        }
        try await Self.importListing(listing, into: temporary.store)
        let path = temporary.directory.appendingPathComponent("catalog.sqlite").path
        func index() throws -> [String] {
            try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT id || ':' || hex(block) FROM product_search_data ORDER BY id")
            }
        }
        let before = try index()
        try await Self.importListing(listing, into: temporary.store)
        #expect(try index() == before)
        #expect(try await temporary.store.products(ProductFilter(search: "creme 3 "), page: PageRequest()).count == 29)
    }

    /// PostgreSQL's table of each product's words: an unchanged import and a change of price leave every entry as
    /// it was (the same row versions), and a change of name writes the entries of the words it changed alone (all
    /// of that product's were written again before migration v13).
    @Test func anUnchangedImportOrAPriceChangeWritesNoWordOfPostgresProducts() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        let store = try #require(temporary.store as? PostgresCatalogStore)
        let listing = try (0..<200).map { index in
            Product(
                serialCode: "K\(index)", name: "lamp \(index)", description: "café crème \(index % 7)", category: "c\(index % 3)",
                price: try Price(parsing: "1"))
        }
        try await Self.importListing(listing, into: store)
        func entries() async throws -> [String] {
            try await store.transaction(.read) { connection in
                var versions: [String] = []
                let query: PostgresQuery =
                    "SELECT word || ' ' || rank || ' ' || first_order || ' ' || xmin::text || ' ' || ctid::text FROM product_word_runs ORDER BY word, rank, first_order"
                for try await version in try await connection.query(query, logger: store.logger).decode(String.self) { versions.append(version) }
                return versions
            }
        }
        let before = try await entries()
        #expect(!before.isEmpty)
        try await Self.importListing(listing, into: store)
        var repriced = listing[0]
        repriced.price = try Price(parsing: "2")
        _ = try await store.upsertProducts([repriced], author: "api")
        #expect(try await entries() == before)
        var renamed = listing[1]
        renamed.name = "desk 1"
        _ = try await store.upsertProducts([renamed], author: "api")
        let after = try await entries()
        // The run of the new word is written, and the one run of the old word that held the product written again.
        #expect(Set(Set(after).subtracting(before).map { $0.prefix { $0 != " " } }) == ["desk", "lamp"])
        #expect(Set(before).subtracting(after).map { $0.prefix { $0 != " " } } == ["lamp"])
        #expect(try await store.check().isEmpty)
    }

    /// PostgreSQL's first word pages run prepared on the pool whose connections plan a statement once for any
    /// parameters (`PostgresGenericPlanPool`): each run of a whole word there used that one plan, and none was planned
    /// for its own values; so did the typed prefixes' statements (`PostgresListing.leadPage`).
    @Test func firstWordPagesKeepOnePlanForEveryWord() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        let store = try #require(temporary.store as? PostgresCatalogStore)
        let listing = try (0..<60).map { index in
            Product(
                serialCode: "W\(index)", name: ["lamp", "desk", "chair"][index % 3] + " \(index)", category: "c", price: try Price(parsing: "1"))
        }
        try await Self.importListing(listing, into: store)
        let searches = ["lamp ", "desk ", "chair ", "la", "de", "ch", "lamp ", "lam"]
        for search in searches {
            let page = try await store.products(ProductFilter(search: search), page: PageRequest(pageSize: 5))
            #expect(page.count == 20, "\(search)")
        }
        // Run one after another, the pages had one connection of the pool: the one asked here.
        let plans = try await store.genericPlans.client.withOpenConnection { connection in
            var plans: [String: [Int]] = [:]
            let query: PostgresQuery = "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
            for try await (statement, generic, custom) in try await connection.query(query, logger: store.logger).decode((String, Int, Int).self) {
                plans[statement] = [generic, custom]
            }
            return plans
        }
        #expect(plans[PostgresFirstWordPage.sql] == [4, 0])
        // The typed prefixes' two statements (`PostgresListing.leadPage`), each planned once for every prefix.
        for sql in [PostgresPrefixRuns.sql, PostgresRowsByOrder.sql] {
            let prefixPlans = try #require(plans[sql])
            #expect(prefixPlans[0] >= 1 && prefixPlans[1] == 0, "\(prefixPlans)")
        }
    }

    /// A PostgreSQL store with `fewMatchLimit`, `wholeWordMatchLimit` and `prefixEntryLimit`, whose log lines down to
    /// trace are kept in `lines`; nil without a server.
    static func tracedPostgresStore(
        fewMatchLimit: Int, wholeWordMatchLimit: Int = SearchPlanner.wholeWordMatches, prefixEntryLimit: Int = SearchPlanner.prefixEntries
    ) async throws -> (TestStore, PostgresCatalogStore, RecordedLines)? {
        guard StoreBackend.available.contains(.postgres) else { return nil }
        let lines = RecordedLines()
        var logger = Logger(label: "catalogd-tests") { _ in RecordingLogHandler(lines: lines) }
        logger.logLevel = .trace
        let temporary = try await TestStore.open(.postgres, logger: logger)
        guard var store = temporary.store as? PostgresCatalogStore else {
            temporary.remove()
            Issue.record("a PostgreSQL test store is a \(type(of: temporary.store))")
            return nil
        }
        store.searchPlanner.fewMatchLimit = fewMatchLimit
        store.searchPlanner.wholeWordMatchLimit = wholeWordMatchLimit
        store.searchPlanner.prefixEntryLimit = prefixEntryLimit
        return (temporary, store, lines)
    }

    /// PostgreSQL's table of each product's words has one entry per product for a whole word: when a word has more
    /// than that table's page reads, so has the search index, and its statement is not run; a typed prefix, whose
    /// entries may be several per product, still tries it. The pages are the same either way.
    @Test func aWholeWordWithManyEntriesIsNotReadAgainFromTheSearchIndex() async throws {
        guard let (temporary, store, lines) = try await Self.tracedPostgresStore(fewMatchLimit: 6, wholeWordMatchLimit: 6, prefixEntryLimit: 6)
        else { return }
        defer { temporary.remove() }
        let listing = try (0..<12).map { index in
            Product(serialCode: "L\(index)", name: "lamp\(index < 9 ? "" : "shade") \(index)", category: "c", price: try Price(parsing: "1"))
        }
        try await Self.importListing(listing, into: store)
        for (search, count, read) in [("lamp ", 9, ["words"]), ("lamp", 12, ["words", "rows"]), ("lampshade ", 3, ["words"])] {
            lines.removeAll()
            let page = try await store.products(ProductFilter(search: search), page: PageRequest(pageSize: 5))
            #expect(page.count == count, "\(search)")
            #expect(page.rows.count == min(5, count), "\(search)")
            // The kind of each statement tried: `search.source=words`, `search.source=rows(…)`.
            let sources = lines.all.compactMap { line in
                line.firstRange(of: "search.source=").map { line[$0.upperBound...].prefix(while: \.isLetter) }
            }
            #expect(sources.map(String.init) == read, "\(search)")
        }
    }

    /// A typed prefix whose matches' rows were numbered further apart than `RankedMatches.widestSpan` is not merged from
    /// its words' runs, whose bitsets would span every row number between, but walked: the same pages, the same count.
    @Test func aTypedPrefixWhoseRowsLieFurtherApartThanTheWidestSpanIsWalked() async throws {
        guard let (temporary, store, _) = try await Self.tracedPostgresStore(fewMatchLimit: 3) else { return }
        defer { temporary.remove() }
        _ = try await store.upsertProducts(try (0..<4).map { try product("N\($0)", name: "lamp \($0)") }, author: "api")
        let near = try await store.products(ProductFilter(search: "lam"), page: PageRequest(pageSize: 3))
        #expect(near.count == 4)
        #expect(near.searchRead == .wordEntries)
        try await store.transaction(.write) { connection in
            let skip = "SELECT setval(pg_get_serial_sequence('products', 'row_order'), \(2 * RankedMatches.widestSpan))"
            try await connection.query(PostgresQuery(unsafeSQL: skip), logger: store.logger)
        }
        _ = try await store.upsertProducts(try (4..<8).map { try product("N\($0)", name: "lampshade \($0)") }, author: "api")
        let far = try await store.products(ProductFilter(search: "lam"), page: PageRequest(pageSize: 3))
        #expect(far.searchRead == .walk)
        try await Self.expectWalk(store, ProductFilter(search: "lam"), pageSize: 3, expected: (0..<8).map { "N\($0)" }, "lam, far apart")
    }

    /// A whole word's entries in PostgreSQL's table of each product's words are its matches, in page order: a word
    /// with more of them than a page of few matches reads (`fewMatchLimit`) is still read from that table, its page
    /// the key's first entries from the cursor and its count that of its key, forwards and back, not walked rank by
    /// rank (a word of 7,500 matches in a million products: 33 ms walked).
    @Test func aWholeWordOfManyMatchesIsReadFromTheWordsKey() async throws {
        guard let (temporary, store, lines) = try await Self.tracedPostgresStore(fewMatchLimit: 3) else { return }
        defer { temporary.remove() }
        // "lamp" in the names of every third product and in the descriptions of the others: two ranks, in the order
        // the rows were stored within each.
        let listing = try (0..<14).map { index in
            Product(
                serialCode: String(format: "L%02d", index), name: index % 3 == 0 ? "lamp \(index)" : "chair \(index)",
                description: index % 3 == 0 ? "" : "a lamp beside it", category: "c", price: try Price(parsing: "1"))
        }
        try await Self.importListing(listing, into: store)
        let named = listing.indices.filter { $0 % 3 == 0 }
        let expected = (named + listing.indices.filter { $0 % 3 != 0 }).map { String(format: "L%02d", $0) }
        var walked: [String] = []
        var request = PageRequest(pageSize: 4)
        var last: Page<[ProductRow]>?
        lines.removeAll()
        for _ in 0..<10 {
            let page = try await store.products(ProductFilter(search: "lamp "), page: request)
            #expect(page.count == 14)
            walked += page.rows.map(\.product.serialCode)
            last = page
            guard let next = page.nextCursor else { break }
            request.cursor = next
        }
        #expect(walked == expected)
        request.cursor = last?.previousCursor
        var back = Array(last?.rows.map(\.product.serialCode).reversed() ?? [])
        for _ in 0..<10 {
            guard request.cursor != nil else { break }
            let page = try await store.products(ProductFilter(search: "lamp "), page: request)
            back += page.rows.map(\.product.serialCode).reversed()
            request.cursor = page.previousCursor
        }
        #expect(back == expected.reversed())
        // Every page of the walk there and back was read by one statement on the words' runs.
        let sources = lines.all.compactMap { line in
            line.firstRange(of: "search.source=").map { String(line[$0.upperBound...].prefix(while: \.isLetter)) }
        }
        #expect(!sources.isEmpty)
        #expect(sources.allSatisfy { $0 == "words" }, "\(sources)")
        #expect(!lines.all.contains { $0.contains("walking the ranks") || $0.contains("best rank") })
    }

    /// A whole word the sets count with more matches than are sorted at once: its first page is read from its best
    /// rank alone, with the sets' count, and the pages from a cursor from the word's runs, not walked rank by
    /// rank (at a million products, a word of 30,000 matches walked took 148 ms).
    @Test func aWordTheSetsCountReadsItsFirstPageFromItsBestRankAndTheRestFromItsRuns() async throws {
        guard let (temporary, traced, lines) = try await Self.tracedPostgresStore(fewMatchLimit: 3) else { return }
        defer { temporary.remove() }
        var store = traced
        store.searchPlanner.sortedMatchLimit = 10
        // "lamp" in the names of 8 products and the descriptions of 6 of the 34: 14 matches, more than 10.
        let listing = try (0..<34).map { index in
            Product(
                serialCode: String(format: "L%02d", index), name: index < 8 ? "lamp \(index)" : "chair \(index)",
                description: (8..<14).contains(index) ? "a lamp beside it" : "", category: "c", price: try Price(parsing: "1"))
        }
        try await Self.importListing(listing, into: store)
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.2
        let terms = try await store.refreshFrequentTerms(policy)
        #expect(terms.terms.contains("lamp"))
        var walked: [String] = []
        var request = PageRequest(pageSize: 4)
        lines.removeAll()
        let first = try await store.products(ProductFilter(search: "lamp "), page: request)
        #expect(lines.all.contains { $0.contains("reading a first page from the best rank") })
        walked += first.rows.map(\.product.serialCode)
        request.cursor = first.nextCursor
        lines.removeAll()
        for _ in 0..<10 {
            guard request.cursor != nil else { break }
            let page = try await store.products(ProductFilter(search: "lamp "), page: request)
            #expect(page.count == 14)
            walked += page.rows.map(\.product.serialCode)
            request.cursor = page.nextCursor
        }
        #expect(first.count == 14)
        #expect(walked == (0..<14).map { String(format: "L%02d", $0) })
        let sources = lines.all.compactMap { line in
            line.firstRange(of: "search.source=").map { String(line[$0.upperBound...].prefix(while: \.isLetter)) }
        }
        #expect(sources == ["words", "words", "words"], "\(sources)")
        #expect(!lines.all.contains { $0.contains("walking the ranks") })
    }

    /// A word most products of a small catalogue hold has fewer matches than `sortedMatchLimit` but is dense among
    /// the rows: its first page is read from its best rank alone, in the rows' order, not from all its matches
    /// sorted (in a catalogue of 20,000 products, 20 ms for such a word).
    @Test func aWordMostProductsOfASmallCatalogueHoldIsReadFromItsBestRank() async throws {
        // More matches than a page of few matches reads, far fewer than the sorted walk's limit.
        guard let (temporary, store, lines) = try await Self.tracedPostgresStore(fewMatchLimit: 10) else { return }
        defer { temporary.remove() }
        let listing = try (0..<60).map { index in
            Product(
                serialCode: String(format: "L%02d", index), name: "\(index % 10 == 9 ? "chair" : "lamp") \(index)", category: "c",
                price: try Price(parsing: "1"))
        }
        try await Self.importListing(listing, into: store)
        _ = try await store.refreshFrequentTerms(FrequentTermPolicy())
        lines.removeAll()
        let page = try await store.products(ProductFilter(search: "lamp "), page: PageRequest(pageSize: 5))
        #expect(page.count == 54)
        #expect(page.rows.map(\.product.serialCode) == ["L00", "L01", "L02", "L03", "L04"])
        #expect(lines.all.contains { $0.contains("reading a first page from the best rank") })
    }

    /// `check` compares each search index with the rows: here, behind the store's back, the index stops following
    /// the rows (SQLite: a trigger dropped; PostgreSQL: the folding function replaced).
    @Test(arguments: StoreBackend.available) func checkFindsASearchIndexThatNoLongerFollowsTheRows(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        _ = try await temporary.store.upsertProducts(
            [Product(serialCode: "A", name: "Desk lamp", category: "c", price: try Price(parsing: "1"))], author: "api")
        #expect(try await temporary.store.check().isEmpty)
        switch backend {
        case .sqlite:
            try await temporary.executeRaw("DROP TRIGGER product_search_update", [])
            try await temporary.executeRaw("UPDATE products SET name = 'Chair' WHERE serial_code = 'A'", [])
        case .postgres:
            try await temporary.executeRaw(
                "CREATE OR REPLACE FUNCTION catalog_search_words(text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'changed' $$", [])
        }
        let problems = try await temporary.store.check()
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { $0.hasPrefix("search index") })
    }

    /// A store of the catalogd before the kept word counts (migration v11), made by migrating a new database that far,
    /// counts the words it holds in the migration, and keeps them from then on.
    @Test func aStoreMigratedToKeptWordCountsCountsTheWordsItHolds() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let logger = Logger(label: "catalogd-tests")
        let location = try await TestStore.freshDatabase(logger: logger)
        let connection = try await TestStore.connect(location, logger: logger)
        do {
            let beforeCounts = try #require(PostgresSchema.migrations.first { $0.identifier.hasPrefix("v10:") }).identifier
            try await PostgresSchema.migrate(connection, upTo: beforeCounts, logger: logger)
            try await connection.query(
                """
                INSERT INTO products (serial_code, name, description, category, brand, price, price_micros, stock, updated_at, source_url, source, changed_seq)
                SELECT 'K' || n, CASE WHEN n < 3 THEN 'desk lamp' ELSE 'chair' END, '', 'c', '', '1', 1000000, 0, '', '', 'api', 0
                FROM generate_series(0, 4) AS n
                """, logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        let migrated = try await PostgresCatalogStore.open(location, poolSize: 2, connectionWait: .seconds(20), logger: logger)
        let running = Task { await migrated.runConnections() }
        defer {
            migrated.close()
            running.cancel()
        }
        #expect(try await migrated.check().isEmpty)
        #expect(try await migrated.products(ProductFilter(search: "lamp "), page: PageRequest()).count == 3)
        _ = try await migrated.deleteProduct(serialCode: "K0", author: "api")
        #expect(try await migrated.products(ProductFilter(search: "lamp "), page: PageRequest()).count == 2)
        #expect(try await migrated.products(ProductFilter(search: "chair "), page: PageRequest()).count == 2)
        _ = try await migrated.upsertProducts(
            [Product(serialCode: "K1", name: "chair", category: "c", price: try Price(parsing: "1"))], author: "api")
        #expect(try await migrated.products(ProductFilter(search: "lamp "), page: PageRequest()).count == 1)
        #expect(try await migrated.products(ProductFilter(search: "chair "), page: PageRequest()).count == 3)
        #expect(try await migrated.check().isEmpty)
    }

    /// A word held by more products than a run holds (`PostgresSearchIndex.wordRunLength`), in two ranks, written by a
    /// streamed first import and then changed in the middle, before its first run and past its last: its pages, read
    /// forwards and back from every cursor, are the matches in page order as the rows tell them, and `check` finds its
    /// runs as the vectors make them at each stage.
    @Test func aWordOfManyRunsIsPagedAndWrittenAgainExactly() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        let store = try #require(temporary.store as? PostgresCatalogStore)
        func product(_ index: Int, named: Bool) throws -> Product {
            Product(
                serialCode: String(format: "K%04d", index), name: named ? "lamp \(index)" : "chair \(index)",
                description: named ? "" : "a lamp beside it", category: "c", price: try Price(parsing: "1"))
        }
        guard case .claimed(let claim) = try await store.claimImport(of: .products) else {
            Issue.record("the products' import claim was refused")
            return
        }
        let report = try await store.beginImport(source: .products)
        let streamed = try #require(try await store.makeStreamedListing(of: .products))
        _ = try await streamed.stage(try (0..<450).map { ($0, try product($0, named: $0 % 3 == 0)) })
        _ = try await store.completeImport(report, listing: CompletedListing(records: .stagedProducts(streamed), pages: []), under: claim)
        await streamed.discard()
        await claim.release()
        func matches() async throws -> [String] {
            try await store.transaction(.read) { connection in
                let query: PostgresQuery = """
                    SELECT serial_code FROM products WHERE search_vector @@ to_tsquery('simple', 'lamp') ORDER BY CASE
                    WHEN search_vector @@ to_tsquery('simple', 'lamp:A') THEN 0 WHEN search_vector @@ to_tsquery('simple', 'lamp:AB') THEN 1
                    ELSE 2 END, row_order
                    """
                var keys: [String] = []
                for try await key in try await connection.query(query, logger: store.logger).decode(String.self) { keys.append(key) }
                return keys
            }
        }
        // The length of each of the word's runs, in the key's order.
        func runs() async throws -> [Int] {
            try await store.transaction(.read) { connection in
                var lengths: [Int] = []
                let query: PostgresQuery = "SELECT cardinality(orders) FROM product_word_runs WHERE word = 'lamp' ORDER BY rank, first_order"
                for try await length in try await connection.query(query, logger: store.logger).decode(Int.self) { lengths.append(length) }
                return lengths
            }
        }
        func expectPagesAndCheck(_ stage: String) async throws {
            try await Self.expectWalk(store, ProductFilter(search: "lamp "), pageSize: 7, expected: try await matches(), stage)
            #expect(try await store.check().isEmpty, "\(stage)")
        }
        // 150 products hold it in their names, 300 in their descriptions.
        #expect(try await runs() == [150, 200, 100])
        try await expectPagesAndCheck("after the first import")
        // The first product of its names' run and thirty in the middle of its descriptions' runs go; one product
        // moves from descriptions to names, another from names to no match.
        _ = try await store.deleteProduct(serialCode: "K0000", author: "api")
        for index in stride(from: 202, to: 292, by: 3) {
            _ = try await store.deleteProduct(serialCode: String(format: "K%04d", index), author: "api")
        }
        _ = try await store.upsertProducts([try product(100, named: true), try product(3, named: false)], author: "api")
        var renamed = try product(6, named: true)
        renamed.name = "chair 6"
        _ = try await store.upsertProducts([renamed], author: "api")
        #expect(try await runs() == [148, 170, 100])
        try await expectPagesAndCheck("after deletions and renames")
        // 250 more past the last: the last run of descriptions, 350 long, is split into two of equal length.
        _ = try await store.upsertProducts(try (450..<700).map { try product($0, named: false) }, author: "api")
        #expect(try await runs() == [148, 170, 175, 175])
        try await expectPagesAndCheck("after products added past the last run")
    }

    /// `check` finds runs of a word that are not what the store writes: two runs that overlap, and a run out of order,
    /// though they hold the very entries the vectors make.
    @Test func checkFindsRunsThatOverlapOrAreOutOfOrder() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        _ = try await temporary.store.upsertProducts(
            try (0..<3).map { Product(serialCode: "D\($0)", name: "desk \($0)", category: "c", price: try Price(parsing: "1")) }, author: "api")
        #expect(try await temporary.store.check().isEmpty)
        let problem = "search words of products: 1 runs are not ascending from their first order within their length and before the next"
        let orders = "(SELECT array_agg(row_order ORDER BY row_order) FROM products)"
        try await temporary.executeRaw("DELETE FROM product_word_runs WHERE word = 'desk'", [])
        try await temporary.executeRaw(
            """
            WITH held AS (SELECT \(orders) AS orders) INSERT INTO product_word_runs (word, rank, first_order, orders)
            SELECT 'desk', 0, orders[1], ARRAY[orders[1], orders[3]] FROM held UNION ALL SELECT 'desk', 0, orders[2], ARRAY[orders[2]] FROM held
            """, [])
        #expect(try await temporary.store.check() == [problem])
        try await temporary.executeRaw("DELETE FROM product_word_runs WHERE word = 'desk'", [])
        try await temporary.executeRaw(
            """
            WITH held AS (SELECT \(orders) AS orders) INSERT INTO product_word_runs (word, rank, first_order, orders)
            SELECT 'desk', 0, orders[1], ARRAY[orders[1], orders[3], orders[2]] FROM held
            """, [])
        #expect(try await temporary.store.check() == [problem])
    }

    /// Migration v17's SQL takes the history lock by its number, literal as a migration is: it is still the number
    /// catalogd's writes take (`PostgresLock.history`).
    @Test func theWordRunsMigrationTakesTheHistoryLock() {
        let statements = PostgresSchema.wordRuns.joined(separator: "\n")
        #expect(statements.contains("pg_advisory_xact_lock(\(PostgresLock.history))"))
    }

    /// `check` compares the table of each product's words with the rows (PostgreSQL): here, behind the store's back,
    /// an entry is lost, and then one is left over.
    @Test func checkFindsProductWordsThatNoLongerFollowTheRows() async throws {
        guard StoreBackend.available.contains(.postgres) else { return }
        let temporary = try await TestStore.open(.postgres)
        defer { temporary.remove() }
        _ = try await temporary.store.upsertProducts(
            [Product(serialCode: "A", name: "Desk lamp", category: "c", price: try Price(parsing: "1"))], author: "api")
        #expect(try await temporary.store.check().isEmpty)
        try await temporary.executeRaw("DELETE FROM product_word_runs WHERE word = 'desk'", [])
        var problems = try await temporary.store.check()
        #expect(problems.count == 2)
        #expect(problems.allSatisfy { $0.hasPrefix("search words of products") })
        try await temporary.executeRaw(
            "INSERT INTO product_word_runs (word, rank, first_order, orders) SELECT 'desk', 0, row_order, ARRAY[row_order] FROM products", [])
        #expect(try await temporary.store.check().isEmpty)
        try await temporary.executeRaw(
            "INSERT INTO product_word_runs (word, rank, first_order, orders) SELECT 'chair', 2, row_order, ARRAY[row_order] FROM products", [])
        problems = try await temporary.store.check()
        #expect(
            problems == [
                "search words of products: 1 entries more than the rows hold words",
                "search words of products: 1 entries of the newest 1000 rows differ from their words",
            ])
        // The counts follow the rows, not entries written by hand: only a count written by hand differs.
        try await temporary.executeRaw("DELETE FROM product_word_runs WHERE word = 'chair'", [])
        #expect(try await temporary.store.check().isEmpty)
        try await temporary.executeRaw("UPDATE product_word_runs SET first_order = first_order + 1 WHERE word = 'desk'", [])
        #expect(
            try await temporary.store.check() == [
                "search words of products: 1 runs are not ascending from their first order within their length and before the next"
            ])
        try await temporary.executeRaw("UPDATE product_word_runs SET first_order = first_order - 1 WHERE word = 'desk'", [])
        try await temporary.executeRaw("UPDATE product_word_counts SET products = products + 1 WHERE word = 'desk'", [])
        #expect(try await temporary.store.check() == ["search words of products: 1 words counted otherwise than the rows hold them"])
    }
}

/// The products a test wrote through a store, in the order they were first stored, and what a search of them gives.
final class WrittenProducts {
    let store: any CatalogStore
    private var rows: [String: Product] = [:]
    private var stored: [String] = []

    init(_ store: any CatalogStore) {
        self.store = store
    }

    func write(_ products: [Product]) async throws {
        _ = try await store.upsertProducts(products, author: "api")
        for product in products {
            if rows[product.serialCode] == nil { stored.append(product.serialCode) }
            rows[product.serialCode] = product
        }
    }

    func delete(_ key: String) async throws {
        _ = try await store.deleteProduct(serialCode: key, author: "api")
        rows[key] = nil
        stored.removeAll { $0 == key }
    }

    /// The keys of the products `search` matches (`SearchReference`), best first, ties in the order they were first
    /// stored.
    func matches(_ search: String) -> [String] {
        let query = SearchQuery(search)
        return stored.compactMap { key in rows[key].flatMap { SearchReference.rank(query, $0) }.map { ($0, key) } }
            .enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
    }
}

/// What a product search matches, read by brute force from the rules `SearchQuery` and `SearchFolding` state.
enum SearchReference {
    static let vocabulary = [
        "lamp", "Lamp", "LAMPS", "lampe", "desk", "Desk-lamp", "desk,", "(lamp)", "café", "CAFÉ", "Cafe", "crème", "naïve", "Zoë",
        "façade", "ÅNGSTRÖM", "über", "o'brien", "x2", "42", "année", "noël", "ø", "straße", "&", "--", "…", "lamp", "desk", "and",
    ]
    static let queries = [
        "lamp", "lamp ", "LAMP ", "la", "desk lamp", "lamp desk ", "\"desk lamp\"", "\"lamp desk\"", "cafe", "CAFÉ ", "creme", "naive ",
        "zoe ", "facade", "angstrom ", "uber ", "brien ", "o'brien", "x2 ", "4", "42 ", "annee noel", "ø", "straße ", "strasse",
        "and ", "AND", "-desk", "\"unbalanced", "*", "lamp:*", "desk NEAR lamp", "zz", "\"(lamp)\" desk",
        // A word with a set beside one without, or a typed prefix: read from the other (`SearchLead`) once the sets
        // hold "lamp" and "desk".
        "lamp cafe ", "desk naive", "creme lamp ", "lamp x", "desk lamp uber ", "lamp noe", "Lamp zoë ",
    ]

    /// The letters with diacritics, and the lower-case ASCII letter each stands for: a letter whose canonical
    /// decomposition is an ASCII letter followed by combining marks only is that letter (SQLite's `unicode61`
    /// tokenizer with `remove_diacritics 2`), but for Ǡ and ǡ, which the tokenizer's table lacks.
    static let latinLetters: [(letter: Character, base: Character)] = {
        let ranges: [ClosedRange<UInt32>] = [0x00C0...0x024F, 0x1E00...0x1EFF]
        return ranges.joined().compactMap { value in
            guard let scalar = Unicode.Scalar(value), !["Ǡ", "ǡ"].contains(Character(scalar)) else { return nil }
            let decomposed = Array(String(Character(scalar)).decomposedStringWithCanonicalMapping.unicodeScalars)
            guard decomposed.count > 1, let base = decomposed.first, base.isASCII, base.properties.isAlphabetic,
                decomposed.dropFirst().allSatisfy({ $0.properties.generalCategory == .nonspacingMark })
            else { return nil }
            return (Character(scalar), Character(String(base).lowercased()))
        }
    }()

    static let foldingTable = Dictionary(latinLetters.map { ($0.letter, $0.base) }, uniquingKeysWith: { first, _ in first })

    /// Folded words: runs of letters and digits, lower case, without the diacritics of Latin letters.
    static func words(_ text: String) -> [String] {
        let folded = String(text.map { foldingTable[$0] ?? $0 }).lowercased()
        return folded.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    static func matches(_ part: SearchQuery.Part, _ fields: [[String]]) -> Bool {
        switch part {
        case .word(let word): fields.contains { $0.contains(words(word).joined(separator: " ")) }
        case .prefix(let word): fields.contains { $0.contains { $0.hasPrefix(words(word).joined(separator: " ")) } }
        case .anyWord(let anyOf): anyOf.contains { matches(.word($0), fields) }
        case .anyPrefix(let starts): starts.contains { matches(.prefix($0), fields) }
        case .phrase(let phrase):
            fields.contains { field in
                let wanted = phrase.flatMap(words)
                return field.count >= wanted.count && (0...(field.count - wanted.count)).contains { Array(field[$0..<($0 + wanted.count)]) == wanted }
            }
        }
    }

    /// The product's rank for `query`, nil when it does not match.
    static func rank(_ query: SearchQuery, _ product: Product) -> Int? {
        guard !query.matchesNothing else { return nil }
        let ranks = [[product.name], [product.brand ?? ""], [product.description, product.category]].map { $0.map(words) }
        return ranks.indices.first { rank in
            let fields = ranks[0...rank].flatMap { $0 }
            return query.parts.allSatisfy { matches($0, fields) }
        }
    }
}

/// A seeded generator, so that a failure can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
