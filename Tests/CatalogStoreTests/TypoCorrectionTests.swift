import CatalogFixtures
import CatalogModel
import CatalogTestSupport
import Testing

@testable import CatalogStore

/// Corrections of mistyped words (`SearchPlanner.corrected`), checked against a reference that measures every word of
/// the vocabulary, and on both engines through the store.
@Suite struct TypoCorrectionTests {
    /// The edit distance of Damerau's optimal string alignment, cell by cell: the reference.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1) }
            }
        }
        return table[a.count][b.count]
    }

    /// A vocabulary of `count` words of 3 to 12 letters from a small alphabet (so that near words abound), each held
    /// by some rows, in byte order; the same for the same seed.
    static func vocabulary(count: Int, seed: UInt64) -> (words: [String], rows: [Int]) {
        var random = SplitMix64(seed: seed)
        var words = Set<String>()
        while words.count < count {
            let length = 3 + Int(random.next() % 10)
            words.insert(String(decoding: (0..<length).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 6) }, as: UTF8.self))
        }
        let sorted = words.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return (sorted, sorted.map { _ in 1 + Int(random.next() % 50) })
    }

    /// Frequent terms holding `words` as their vocabulary, none of them with a set.
    static func terms(_ words: [String], rows: [Int]) -> FrequentTerms {
        var builder = FrequentTerms.Builder(productsVersion: 1, historySeq: 1, largestRowNumber: 1)
        var policy = FrequentTermPolicy()
        policy.minimumShare = 2
        _ = builder.chooseWords(from: words, rows: rows, of: 1_000, policy)
        return builder.build()
    }

    /// What `corrected` should replace a whole word with: the words fewest edits from it within its allowance, the
    /// most held first, then in byte order, at most `candidatesPerWord`.
    static func reference(_ typed: String, words: [String], rows: [Int]) -> [String] {
        let allowed = SearchPlanner.maximumEdits(Array(typed.utf8))
        let near = words.indices.map { (index: $0, edits: distance(Array(typed.utf8), Array(words[$0].utf8))) }.filter { $0.edits <= allowed }
        guard allowed > 0, let fewest = near.map(\.edits).min() else { return [] }
        return near.filter { $0.edits == fewest }.sorted { (rows[$0.index], words[$1.index]) > (rows[$1.index], words[$0.index]) }
            .prefix(SearchPlanner.candidatesPerWord).map { words[$0.index] }
    }

    @Test func eachMistypedWordIsReplacedByTheNearestWordsAsTheReferenceFindsThem() {
        let (words, rows) = Self.vocabulary(count: 3_000, seed: 7)
        let terms = Self.terms(words, rows: rows)
        var random = SplitMix64(seed: 11)
        var corrected = 0
        for _ in 0..<250 {
            // A word of the vocabulary with an edit or two, or a new word.
            var typed = Array(words[Int(random.next() % UInt64(words.count))].utf8)
            for _ in 0..<(1 + Int(random.next() % 2)) {
                let at = Int(random.next() % UInt64(typed.count))
                switch random.next() % 4 {
                case 0: typed.remove(at: at)
                case 1: typed.insert(UInt8(ascii: "a") + UInt8(random.next() % 6), at: at)
                case 2: typed[at] = UInt8(ascii: "a") + UInt8(random.next() % 6)
                default: if at + 1 < typed.count { typed.swapAt(at, at + 1) }
                }
            }
            let text = String(decoding: typed, as: UTF8.self)
            let expected = words.contains(text) ? [] : Self.reference(text, words: words, rows: rows)
            let correction = SearchPlanner.corrected(SearchQuery(text + " "), in: terms)
            #expect(correction?.corrections.first?.searched ?? [] == expected, "\(text)")
            if !expected.isEmpty { corrected += 1 }
        }
        // The sample exercised corrections, not only words left alone.
        #expect(corrected > 60)
    }

    @Test func aTypedPrefixIsReplacedByTheShortestStartsOfWordsOneEditFromIt() {
        let words = ["lamp", "lampshade", "lantern", "merlin", "merlot", "mertens", "mortar"]
        let terms = Self.terms(words, rows: words.map { _ in 1 })
        // No word starts with "merto"; "mert" (a letter deleted) and "merlo" (one replaced) are one edit from it, and
        // stand for "mertens" and "merlot"; "merl", two edits away, does not stand for "merlin".
        let correction = SearchPlanner.corrected(SearchQuery("merto"), in: terms)
        #expect(correction?.corrections == [SearchCorrection(typed: "merto", searched: ["merlo", "mert"])])
        #expect(correction?.search == SearchQuery(parts: [.anyPrefix(["merlo", "mert"])]))
        #expect(SearchPlanner.corrected(SearchQuery("lampshd"), in: terms)?.search == SearchQuery(parts: [.prefix("lampsh")]))
        // Under 5 letters, a prefix is left as typed: nothing to correct.
        #expect(SearchPlanner.corrected(SearchQuery("mrt"), in: terms) == nil)
    }

    /// The starts of words one edit from a typed prefix, as the reference finds them: each start of a word one edit
    /// from it none of whose own starts is, the most words first.
    @Test func aTypedPrefixIsCorrectedAsTheReferenceFindsIt() {
        let (words, rows) = Self.vocabulary(count: 3_000, seed: 5)
        let terms = Self.terms(words, rows: rows)
        var random = SplitMix64(seed: 13)
        var corrected = 0
        for _ in 0..<150 {
            let length = 5 + Int(random.next() % 3)
            let typed = (0..<length).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 6) }
            guard !words.contains(where: { $0.utf8.starts(with: typed) }) else { continue }
            var starts: [String: Int] = [:]
            for word in words {
                let bytes = Array(word.utf8)
                for end in 1...bytes.count where Self.distance(Array(bytes[..<end]), typed) <= 1 {
                    starts[String(decoding: bytes[..<end], as: UTF8.self), default: 0] += 1
                    break
                }
            }
            let expected = starts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(SearchPlanner.candidatesPerWord).map(\.key)
            let text = String(decoding: typed, as: UTF8.self)
            #expect(SearchPlanner.corrected(SearchQuery(text), in: terms)?.corrections.first?.searched ?? [] == expected, "\(text)")
            if !expected.isEmpty { corrected += 1 }
        }
        #expect(corrected > 25)
    }

    @Test func heldWordsShortWordsAndWordsWithDigitsAreSearchedAsTyped() {
        let words = ["lamp", "lamps", "table", "tables"]
        let terms = Self.terms(words, rows: [3, 1, 2, 1])
        #expect(SearchPlanner.corrected(SearchQuery("lamp "), in: terms) == nil)
        #expect(SearchPlanner.corrected(SearchQuery("lmp "), in: terms) == nil)
        #expect(SearchPlanner.corrected(SearchQuery("lamp2 "), in: terms) == nil)
        let correction = SearchPlanner.corrected(SearchQuery("lamp tabel "), in: terms)
        #expect(correction?.search == SearchQuery(parts: [.word("lamp"), .word("table")]))
        #expect(correction?.corrections == [SearchCorrection(typed: "tabel", searched: ["table"])])
        // A word with no near word leaves nothing to search: no correction.
        #expect(SearchPlanner.corrected(SearchQuery("lamp zzzzzz "), in: terms) == nil)
    }

    /// Input made to be slow: a long word is not corrected; one of a letter repeated, or near many words, visits at
    /// most `visitLimit` nodes and keeps at most `candidatesPerWord` words; a word of other scripts is left alone.
    @Test func wordsMadeToBeSlowAreBounded() {
        let (words, rows) = Self.vocabulary(count: 20_000, seed: 3)
        let terms = Self.terms(words, rows: rows)
        let vocabulary = terms.vocabulary
        #expect(SearchPlanner.corrected(SearchQuery(String(repeating: "ab", count: 100) + " "), in: terms) == nil)
        for typed in [String(repeating: "a", count: 16), "abcdefabcd", "aaaaaaaaa"] {
            let walk = vocabulary?.near(Array(typed.utf8), maximumEdits: 2, asPrefix: false, visitLimit: SearchPlanner.visitLimit)
            #expect((walk?.visited ?? 0) <= SearchPlanner.visitLimit, "\(typed)")
            let searched = SearchPlanner.corrected(SearchQuery(typed + " "), in: terms)?.corrections.first?.searched ?? []
            #expect(searched.count <= SearchPlanner.candidatesPerWord, "\(typed)")
        }
        #expect(SearchPlanner.corrected(SearchQuery("lämpchen ランプ "), in: terms) == nil)
    }
}

/// Corrections through the store, on every engine: the corrected search's page, count and facets are those of the
/// words it searched, a write since the base is counted by the next read, and a filter that asks for none gets none.
@Suite("Mistyped searches in the store")
struct StoreTypoCorrectionTests {
    static func product(_ key: String, _ name: String, category: String = "lighting") throws -> Product {
        Product(serialCode: key, name: name, category: category, price: try Price(parsing: "3"))
    }

    @Test(arguments: StoreBackend.available) func aMistypedSearchIsAnsweredAsCorrectedOnEveryEngine(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        _ = try await store.upsertProducts(
            [
                try Self.product("A", "Desk lamp"), try Self.product("B", "Floor lamp", category: "living"),
                try Self.product("C", "Oak table", category: "living"), try Self.product("D", "Storm lantern"),
                try Self.product("E", "Lamp oil"), try Self.product("F", "Table lamp"),
            ], author: "api")
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.4
        _ = try await store.refreshFrequentTerms(policy)
        func read(_ search: String, typos: Bool = true) async throws -> Page<[ProductRow]> {
            try await store.products(ProductFilter(search: search, correctsTypos: typos), page: PageRequest(pageSize: 10))
        }
        // "table" as typed, and with two letters swapped.
        let exact = try await read("table ")
        let typo = try await read("tabel ")
        #expect(typo.corrections == [SearchCorrection(typed: "tabel", searched: ["table"])])
        #expect(typo.count == exact.count && exact.count == 2)
        #expect(typo.rows.map(\.product.serialCode) == exact.rows.map(\.product.serialCode))
        #expect(exact.corrections.isEmpty)
        let asTyped = try await read("tabel ", typos: false)
        #expect(asTyped.count == 0 && asTyped.corrections.isEmpty)
        // Two words, one held: only the other is corrected.
        let pair = try await read("lamp tabel ")
        #expect(pair.corrections == [SearchCorrection(typed: "tabel", searched: ["table"])])
        #expect(pair.rows.map(\.product.serialCode) == ["F"])
        // A correction that finds nothing either is not made: the empty page of the words as typed.
        let nowhere = try await read("tabel storm ")
        #expect(nowhere.count == 0 && nowhere.corrections.isEmpty)
        // Under five letters, a word is searched as typed.
        #expect(try await read("lapm ").corrections.isEmpty)
        // The word still being typed: the starts of words one edit from it.
        let typing = try await read("lantren")
        #expect(typing.corrections == [SearchCorrection(typed: "lantren", searched: ["lantern"])])
        #expect(typing.rows.map(\.product.serialCode) == ["D"])
        let facets = try await store.productFacets(ProductFilter(search: "tabel "), fields: [.category], size: 10)
        let exactFacets = try await store.productFacets(ProductFilter(search: "table "), fields: [.category], size: 10)
        #expect(facets.counts.map(\.1) == exactFacets.counts.map(\.1))
        // A product written since the base holds the corrected word: the next read counts it.
        _ = try await store.upsertProducts([try Self.product("G", "Side table")], author: "api")
        let afterWrite = try await read("tabel ")
        #expect(afterWrite.count == exact.count + 1)
        #expect(afterWrite.corrections == typo.corrections)
        // A word written since the base is a correction of the next read.
        _ = try await store.upsertProducts([try Self.product("H", "Brass sconce")], author: "api")
        let newWord = try await read("sconse ")
        #expect(newWord.corrections == [SearchCorrection(typed: "sconse", searched: ["sconce"])])
        #expect(newWord.rows.map(\.product.serialCode) == ["H"])
    }

    /// A mistyped word that stands for several: the first page leads with the best match of each, in the rows' order,
    /// then the search's ranks as ever; pages visit every match once either way, and the filters hold for the leads.
    @Test(arguments: StoreBackend.available) func aCorrectedPageLeadsWithEachWordsBestMatch(_ backend: StoreBackend) async throws {
        let temporary = try await TestStore.open(backend)
        defer { temporary.remove() }
        let store = temporary.store
        // "table" in many names; "fable" and "cable" later, one a description's word, so the walk would show them last.
        var products = try (1...12).map { try Self.product(String(format: "T%02d", $0), "Oak table \($0)") }
        products.append(try Self.product("U01", "Story book", category: "books"))
        products[12].description = "A fable for children"
        products.append(try Self.product("U02", "Cable tie", category: "tools"))
        products.append(try Self.product("U03", "Cable reel", category: "tools"))
        _ = try await store.upsertProducts(products, author: "api")
        var policy = FrequentTermPolicy()
        policy.minimumShare = 0.4
        _ = try await store.refreshFrequentTerms(policy)
        /// The pages of `filter` from the first, and back from the last along the previous cursors.
        func pages(_ filter: ProductFilter) async throws -> (forward: [[String]], back: [[String]]) {
            var page = try await store.products(filter, page: PageRequest(pageSize: 5))
            var forward = [page.rows.map(\.product.serialCode)]
            while let next = page.nextCursor, forward.count < 10 {
                page = try await store.products(filter, page: PageRequest(pageSize: 5, cursor: next))
                forward.append(page.rows.map(\.product.serialCode))
            }
            var back = [page.rows.map(\.product.serialCode)]
            while let previous = page.previousCursor, back.count < 10 {
                page = try await store.products(filter, page: PageRequest(pageSize: 5, cursor: previous))
                back.insert(page.rows.map(\.product.serialCode), at: 0)
            }
            return (forward, back)
        }
        let typed = ProductFilter(search: "zable ")
        let first = try await store.products(typed, page: PageRequest(pageSize: 5))
        #expect(Set(first.corrections.flatMap(\.searched)) == ["table", "fable", "cable"])
        #expect(first.count == 15)
        #expect(first.rows.map(\.product.serialCode) == ["T01", "U01", "U02", "T02", "T03"])
        let walked = try await pages(typed)
        #expect(walked.forward.flatMap { $0 }.sorted() == products.map(\.serialCode).sorted())
        #expect(walked.back == walked.forward)
        // A filter holds for the leads: no tool leads a page of lighting.
        var lighting = typed
        lighting.category = "lighting"
        let filtered = try await store.products(lighting, page: PageRequest(pageSize: 5))
        #expect(filtered.count == 12)
        #expect(filtered.rows.map(\.product.serialCode) == ["T01", "T02", "T03", "T04", "T05"])
        // Ordered otherwise, a corrected search has no leads.
        let byKey = try await store.products(typed, page: PageRequest(ordering: "serial_code", pageSize: 5))
        #expect(byKey.rows.map(\.product.serialCode) == ["T01", "T02", "T03", "T04", "T05"])
    }
}
