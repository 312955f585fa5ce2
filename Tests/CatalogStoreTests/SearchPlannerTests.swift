import CatalogStore
import Testing

/// Which plan each kind of search gets, without a store: `SearchPlanner` is a pure function of what is known before
/// a search's matches are read.
@Suite struct SearchPlannerTests {
    static let everyRead = SearchPlanner(reads: Set(SearchRead.allCases))
    static let word = SearchQuery("lamp ")
    static let prefix = SearchQuery("lam")
    static let twoWords = SearchQuery("desk lamp ")

    /// One row of the table: the facts, and the plan they get from an engine with every read.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let facts: SearchPlanner.Facts
        let plan: [SearchRead]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "no search", facts: .init(search: nil, ranked: false, firstPage: true, filtered: false), plan: [.keyset]),
        Case(name: "a search in another ordering", facts: .init(search: word, ranked: false, firstPage: true, filtered: false), plan: [.keyset]),
        Case(
            name: "a word, count unknown", facts: .init(search: word, ranked: true, firstPage: true, filtered: false),
            plan: [.wordEntries, .matchesWithFilters, .walk]),
        Case(
            name: "a word with a filter, count unknown", facts: .init(search: word, ranked: true, firstPage: true, filtered: true),
            plan: [.matchesThenFilters, .matchesWithFilters, .walk]),
        Case(
            name: "a selective word", facts: .init(search: word, ranked: true, firstPage: true, filtered: false, knownMatches: 600),
            plan: [.wordEntries, .matchesWithFilters, .walk]),
        Case(
            name: "a common whole word, first page",
            facts: .init(search: word, ranked: true, firstPage: true, filtered: false, knownMatches: 30_000, largestRowNumber: 1_000_000),
            plan: [.bestRankFirst, .wordEntries, .walk]),
        Case(
            name: "a common whole word, from a cursor",
            facts: .init(search: word, ranked: true, firstPage: false, filtered: false, knownMatches: 30_000, largestRowNumber: 1_000_000),
            plan: [.wordEntries, .walk]),
        Case(
            name: "a common prefix, first page",
            facts: .init(search: prefix, ranked: true, firstPage: true, filtered: false, knownMatches: 30_000, largestRowNumber: 1_000_000),
            plan: [.bestRankFirst, .wordEntries, .walk]),
        Case(
            name: "a common prefix, from a cursor",
            facts: .init(search: prefix, ranked: true, firstPage: false, filtered: false, knownMatches: 30_000, largestRowNumber: 1_000_000),
            plan: [.wordEntries, .walk]),
        Case(
            name: "a prefix most rows match, from a cursor",
            facts: .init(search: prefix, ranked: true, firstPage: false, filtered: false, knownMatches: 600_000, largestRowNumber: 1_000_000),
            plan: [.walk]),
        Case(
            name: "a word most rows of a small catalogue hold",
            facts: .init(search: word, ranked: true, firstPage: true, filtered: false, knownMatches: 600, largestRowNumber: 1_000),
            plan: [.bestRankFirst, .wordEntries, .matchesWithFilters, .walk]),
        Case(
            name: "two words of 5,000 matches with a filter",
            facts: .init(search: twoWords, ranked: true, firstPage: true, filtered: true, knownMatches: 5_000, largestRowNumber: 1_000_000),
            plan: [.walk]),
        Case(
            name: "two words of 1,500 matches with a filter",
            facts: .init(search: twoWords, ranked: true, firstPage: true, filtered: true, knownMatches: 1_500, largestRowNumber: 1_000_000),
            plan: [.matchesThenFilters, .matchesWithFilters, .walk]),
        Case(
            name: "two words, no filter", facts: .init(search: twoWords, ranked: true, firstPage: true, filtered: false),
            plan: [.wordEntries, .matchesWithFilters, .walk]),
    ]

    @Test(arguments: cases) func eachSearchGetsItsPlan(_ row: Case) {
        let plan = Self.everyRead.plan(row.facts)
        #expect(plan == row.plan)
        #expect(plan.last == .keyset || plan.last == .walk, "a plan ends with a read that always answers")
    }

    @Test(arguments: cases) func anEngineWithoutReadsOfEveryMatchWalksEveryRankedSearch(_ row: Case) {
        let walkOnly = SearchPlanner(reads: [.nothing, .keyset, .walk])
        let plan = walkOnly.plan(row.facts)
        #expect(plan == (row.facts.ranked && row.facts.search != nil ? [.walk] : [.keyset]))
    }

    @Test func aReadThatDeclinedIsNotPlannedAgain() {
        let facts = SearchPlanner.Facts(search: Self.word, ranked: true, firstPage: true, filtered: false)
        let plan = Self.everyRead.plan(facts, tried: [.wordEntries])
        #expect(plan == [.matchesWithFilters, .walk])
    }

    /// A whole word's entries in the table of each product's words are its matches: when that read declines with more
    /// than it reads, the count it found rules out every other read of all the matches at once.
    @Test func aWholeWordsCountFromADeclinedReadLeavesTheWalk() {
        var planner = Self.everyRead
        planner.fewMatchLimit = 6
        planner.wholeWordMatchLimit = 6
        var facts = SearchPlanner.Facts(search: Self.word, ranked: true, firstPage: true, filtered: false)
        #expect(planner.plan(facts) == [.wordEntries, .matchesWithFilters, .walk])
        facts.knownMatches = 9
        #expect(planner.plan(facts, tried: [.wordEntries]) == [.walk])
    }

    /// A whole word's entries are read whatever their number, a typed prefix's up to `prefixEntries`, and a search of
    /// several parts is read from its lead's up to `leadEntries` (`SearchLead`), fewer on SQLite; a phrase has no
    /// entries of its own.
    @Test func aWholeWordIsReadFromItsEntriesWhateverItsCount() {
        #expect(Self.everyRead.candidateLimit(.wordEntries, Self.word) == SearchPlanner.wholeWordMatches)
        #expect(Self.everyRead.candidateLimit(.wordEntries, Self.prefix) == SearchPlanner.prefixEntries)
        #expect(Self.everyRead.candidateLimit(.wordEntries, Self.twoWords) == SearchPlanner.leadEntries)
        #expect(Self.everyRead.candidateLimit(.wordEntries, SearchQuery("\"desk lamp\"")) == SearchPlanner.fewMatches)
        #expect(Self.everyRead.candidateLimit(.matchesWithFilters, Self.word) == SearchPlanner.fewMatches)
        var sqlite = Self.everyRead
        sqlite.leadEntryLimit = 20_000
        #expect(sqlite.candidateLimit(.wordEntries, Self.twoWords) == 20_000)
        #expect(sqlite.candidateLimit(.wordEntries, Self.prefix) == SearchPlanner.prefixEntries)
    }

    /// SQLite reads a ranked search without filters from its word entries first (a search led by one part, which
    /// its listing answers), then walks; with a filter, or in another ordering, it walks or reads its keyset.
    @Test func sqliteTriesAWordsEntriesBeforeItsWalk() {
        let sqlite = SearchPlanner(reads: [.nothing, .keyset, .wordEntries, .walk])
        #expect(sqlite.plan(.init(search: Self.twoWords, ranked: true, firstPage: true, filtered: false)) == [.wordEntries, .walk])
        #expect(sqlite.plan(.init(search: Self.twoWords, ranked: true, firstPage: true, filtered: true)) == [.walk])
        #expect(sqlite.plan(.init(search: Self.twoWords, ranked: false, firstPage: true, filtered: false)) == [.keyset])
    }

    @Test func aWalkSortsItsMatchesWhenTheyAreFew() {
        let unknownRows = SearchPlanner.Facts(search: Self.word, ranked: true, firstPage: true, filtered: true)
        #expect(!Self.everyRead.walkSortsMatches(0, unknownRows, pageSize: 20, ranks: 4))
        #expect(Self.everyRead.walkSortsMatches(1, unknownRows, pageSize: 20, ranks: 4))
        #expect(Self.everyRead.walkSortsMatches(SearchPlanner.sortedMatches, unknownRows, pageSize: 20, ranks: 4))
        #expect(!Self.everyRead.walkSortsMatches(SearchPlanner.sortedMatches + 1, unknownRows, pageSize: 20, ranks: 4))
    }

    /// A common word in a category of 200,000 products: 13,000 matches, fewer than `sortedMatches`, but one row in 15,
    /// so a walk of 21 rows in the rows' order reads about 1,300 rows (a fourth of the matches in the best rank
    /// reckoned), where sorting reads all 13,000. Sorting them took 14 ms on PostgreSQL, the walk 1.
    @Test func aWalkReadsDenseMatchesInTheRowsOrderThoughTheyAreFewerThanSortedMatches() {
        let facts = SearchPlanner.Facts(search: Self.word, ranked: true, firstPage: true, filtered: true, largestRowNumber: 199_999)
        #expect(!Self.everyRead.walkSortsMatches(13_000, facts, pageSize: 20, ranks: 4))
        // 21 * 200,000 * 4 / 4,000 = 4,200 rows walked: sorting 4,000 reads fewer.
        #expect(Self.everyRead.walkSortsMatches(4_000, facts, pageSize: 20, ranks: 4))
        #expect(!Self.everyRead.walkSortsMatches(4_200, facts, pageSize: 20, ranks: 4))
        // A page of 100 walks about five times as many rows.
        #expect(!Self.everyRead.walkSortsMatches(8_900, facts, pageSize: 20, ranks: 4))
        #expect(Self.everyRead.walkSortsMatches(8_900, facts, pageSize: 100, ranks: 4))
    }
}

/// Which part a search is read from when the sets tell its other words (`FrequentTerms.lead(of:)`), and the rank the
/// sets tell a row holds them in, without a store.
@Suite struct SearchLeadTests {
    /// Sets of "lamp" (rows 0-5: in a name, a brand, then descriptions) and "desk" (rows 3-8: descriptions, then
    /// names), for rows 0-9.
    static let terms: FrequentTerms = {
        var builder = FrequentTerms.Builder(productsVersion: 1, historySeq: 1, largestRowNumber: 9)
        func set(_ rows: [Int64]) -> RowNumberSet {
            var set = builder.emptySet()
            for row in rows { set.insert(row) }
            return set
        }
        builder.add("lamp", byRank: [set([0]), set([1]), set([2, 3, 4, 5])])
        builder.add("desk", byRank: [set([7, 8]), set([]), set([3, 4, 5, 6, 8])])
        return builder.build()
    }()

    @Test(arguments: [
        ("lamp cafe ", SearchQuery.Part.word("cafe"), ["lamp"]), ("cafe Lamp ", .word("cafe"), ["lamp"]), ("lamp ca", .prefix("ca"), ["lamp"]),
        ("desk cafe lamp ", .word("cafe"), ["desk", "lamp"]),
    ])
    func aSearchIsLedByItsOnePartWithoutASet(_ search: String, lead: SearchQuery.Part, others: [String]) throws {
        let found = try #require(Self.terms.lead(of: SearchQuery(search)))
        #expect(found.part == lead && found.others == others)
    }

    @Test(arguments: ["lamp desk ", "cafe tea ", "cafe", "lamp", "\"lamp cafe\" desk ", "lamp café tea"])
    func aSearchWithoutExactlyOnePartWithoutASetHasNoLead(_ search: String) {
        #expect(Self.terms.lead(of: SearchQuery(search)) == nil)
    }

    /// A row's rank for several words is the worst of the first ranks each is held in; nil when one does not hold it.
    @Test func aRowsRankIsTheWorstOfItsWordsRanks() {
        #expect(Self.terms.ranking(["lamp"])?.rank(ofRow: 0) == 0)
        #expect(Self.terms.ranking(["lamp"])?.rank(ofRow: 1) == 1)
        #expect(Self.terms.ranking(["desk"])?.rank(ofRow: 8) == 0)
        #expect(Self.terms.ranking(["lamp", "desk"])?.rank(ofRow: 3) == 2)
        #expect(Self.terms.ranking(["lamp", "desk"])?.rank(ofRow: 7) == nil)
        #expect(Self.terms.ranking([])?.rank(ofRow: 9) == 0)
        #expect(Self.terms.ranking(["chair"])?.rank(ofRow: 9) == nil)
    }

    /// Orders are numbered by their place among the sets' rows' orders, asked in any order (a gallop from the last place
    /// found when they ascend); an order the sets do not hold has no number; where the rows are numbered by the engine,
    /// an order is its own number.
    @Test func ordersAreNumberedByTheirPlaceAskedInAnyOrder() {
        let orders: [Int64] = (0..<300).map { $0 * 3 + 5 }
        var builder = FrequentTerms.Builder(productsVersion: 1, historySeq: 1, largestRowNumber: 299)
        builder.numberRows(byPlaceIn: orders)
        var numbering = builder.build().numbering()
        var random = SplitMix64(seed: 11)
        let asked = (0..<200).map { _ in Int64(random.next() % 1_000) } + (0..<1_000).map(Int64.init)
        for order in asked {
            let expected = orders.firstIndex(of: order).map(Int64.init)
            #expect(numbering.rowNumber(ofOrder: order) == expected, "\(order)")
        }
        var own = Self.terms.numbering()
        #expect(own.rowNumber(ofOrder: 77) == 77)
    }
}

/// Which typed prefixes a read asks sets of its own for (`FrequentTermShelf.ask`), without a store.
@Suite struct WidePrefixTests {
    static func shelf() -> FrequentTermShelf {
        let shelf = FrequentTermShelf()
        shelf.install(FrequentTerms.Builder(productsVersion: 1, historySeq: 1, largestRowNumber: 9).build())
        return shelf
    }

    /// A typed prefix of two characters or more with enough matches is asked for; a whole word, a single letter, a
    /// search of two parts and a prefix with fewer matches are not.
    @Test func onlyAWideTypedPrefixIsAskedFor() {
        let shelf = Self.shelf()
        let wide = FrequentTerms.widePrefixMatches
        for (search, matches) in [("t", wide), ("trc ", wide), ("lamp trc", wide), ("trc", wide - 1), ("tr", wide), ("trc", wide)] {
            shelf.ask(SearchQuery(search), matches: matches)
        }
        #expect(shelf.askedPrefixes == ["trc", "tr"])
        #expect(shelf.wantsPrefixes)
    }

    /// The most recently asked `maximumWidePrefixes` are kept, one asked again coming first.
    @Test func theMostRecentlyAskedAreKept() {
        let shelf = Self.shelf()
        let prefixes = (0..<12).map { "p\($0)" }
        for prefix in prefixes { shelf.ask(SearchQuery(prefix), matches: FrequentTerms.widePrefixMatches) }
        shelf.ask(SearchQuery("p5"), matches: FrequentTerms.widePrefixMatches)
        #expect(shelf.askedPrefixes == ["p5", "p11", "p10", "p9", "p8", "p7", "p6", "p4"])
    }
}
