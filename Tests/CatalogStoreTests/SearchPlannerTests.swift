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

    @Test func aWholeWordIsReadFromItsEntriesWhateverItsCount() {
        #expect(Self.everyRead.candidateLimit(.wordEntries, Self.word) == SearchPlanner.wholeWordMatches)
        #expect(Self.everyRead.candidateLimit(.wordEntries, Self.prefix) == SearchPlanner.prefixEntries)
        #expect(Self.everyRead.candidateLimit(.wordEntries, Self.twoWords) == SearchPlanner.fewMatches)
        #expect(Self.everyRead.candidateLimit(.matchesWithFilters, Self.word) == SearchPlanner.fewMatches)
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
