/// Chooses how a page of a search is read, for every engine: the one place that does. A plan is the reads to try, in
/// order (`SearchRead`); an engine reads the first, and when it declines, plans again with what the read found out
/// (`Facts.knownMatches`) and reads the next one not tried yet.
///
/// The choice rests on how many matches the search has, when that is known before reading: exactly from the frequent
/// words' sets at the read's own snapshot, or from a read that declined. Few matches are read at once and sorted,
/// many along their ranks in row order, where a page is found as soon as it is read. A search the vocabulary says
/// matches nothing is not planned: it has no read (`SearchRead.nothing`).
public struct SearchPlanner: Sendable {
    /// How many matches a search has at most to be read at once and sorted (`candidateLimit`): with more, reading the
    /// first of them is wasted, the cost of the statement that finds out that a word is common.
    public static let fewMatches = 2_000
    /// How many matches a first page of relevance has at most to be read otherwise than from its best rank alone: with
    /// more, reading each rank's matches whole to sort them costs more than walking the rows in their order.
    public static let sortedMatches = 20_000
    /// A search whose matches are at least one row in this many is dense among the rows: walking its best rank in row
    /// order reads at most this many rows for each match a sorted read would read.
    public static let denseMatches: Int64 = 2
    /// How many matches a whole word has at most for them all to be read from the table of each product's words: any
    /// number, its entries being its matches in page order and its count kept.
    public static let wholeWordMatches = Int.max
    /// How many entries a typed prefix's words have at most in the table of each product's words for them all to be
    /// read and merged: the 52,855 of a prefix of 53 words took about 10 ms, where its walk took 225; a prefix
    /// with more is one most rows match, whose best rank holds its first page.
    public static let prefixEntries = 100_000
    /// How many entries the lead of a search of several parts has at most (`SearchLead`) for them all to be read and
    /// tested by the sets of the other words, as a typed prefix's (`prefixEntries`): a selective word's few thousand
    /// take a millisecond or two, where the engine would step through the common word's matches beside them. An
    /// engine whose entries cost more to read lowers it (SQLite: `SQLiteListing.leadEntries`).
    public static let leadEntries = prefixEntries

    /// What is known of a search before its matches are read.
    public struct Facts: Sendable, Equatable {
        /// The search as it is read (a typed prefix may be spelled out as words); nil when the list has none.
        public var search: SearchQuery?
        /// Whether the page is ordered by relevance.
        public var ranked: Bool
        /// Whether the page is the first: no cursor.
        public var firstPage: Bool
        /// Whether a condition besides the search selects the rows (a category, a brand, a price, stock).
        public var filtered: Bool
        /// How many rows the search and the filters select, exactly, at the read's snapshot; nil when unknown.
        public var knownMatches: Int?
        /// The largest row number of the products when `knownMatches` was told: how dense the matches are.
        public var largestRowNumber: Int64?

        public init(
            search: SearchQuery?, ranked: Bool, firstPage: Bool, filtered: Bool, knownMatches: Int? = nil,
            largestRowNumber: Int64? = nil
        ) {
            self.search = search
            self.ranked = ranked
            self.firstPage = firstPage
            self.filtered = filtered
            self.knownMatches = knownMatches
            self.largestRowNumber = largestRowNumber
        }
    }

    /// The reads the engine has.
    public let reads: Set<SearchRead>
    /// `fewMatches`, unless a test lowers it.
    public var fewMatchLimit = Self.fewMatches
    /// `sortedMatches`, unless a test lowers it.
    public var sortedMatchLimit = Self.sortedMatches
    /// `wholeWordMatches`, unless a test lowers it.
    public var wholeWordMatchLimit = Self.wholeWordMatches
    /// `prefixEntries`, unless a test lowers it.
    public var prefixEntryLimit = Self.prefixEntries
    /// `leadEntries`, unless an engine (SQLite) or a test lowers it.
    public var leadEntryLimit = Self.leadEntries

    public init(reads: Set<SearchRead>) {
        self.reads = reads
    }

    /// The reads to try for a page of `facts`, in order, but those in `tried`; the last one always answers.
    public func plan(_ facts: Facts, tried: Set<SearchRead> = []) -> [SearchRead] {
        var plan: [SearchRead]
        if facts.search == nil || !facts.ranked {
            plan = [.keyset]
        } else {
            plan = []
            if facts.firstPage, let known = facts.knownMatches, isMany(known, largestRowNumber: facts.largestRowNumber) {
                plan.append(.bestRankFirst)
            }
            let atOnce: [SearchRead] = facts.filtered ? [.matchesThenFilters, .matchesWithFilters] : [.wordEntries, .matchesWithFilters]
            for read in atOnce where facts.knownMatches.map({ $0 <= candidateLimit(read, facts.search) }) ?? true {
                plan.append(read)
            }
            plan.append(.walk)
        }
        return plan.filter { reads.contains($0) && !tried.contains($0) }
    }

    /// The most candidates a read of every match at once reads before it declines: a whole word's entries in the table
    /// of each product's words are its matches, counted apart; a typed prefix's, its words' entries; a search of
    /// several parts', its lead's entries (`SearchLead`); any other read's, `fewMatchLimit`.
    public func candidateLimit(_ read: SearchRead, _ search: SearchQuery?) -> Int {
        guard read == .wordEntries, let search else { return fewMatchLimit }
        switch search.onlyPart {
        case .word?: return wholeWordMatchLimit
        case .prefix?: return prefixEntryLimit
        case .phrase?, .anyWord?, .anyPrefix?: return fewMatchLimit
        case nil: return search.parts.isEmpty ? fewMatchLimit : leadEntryLimit
        }
    }

    /// Whether a walk of `total` matches reads each rank's matches whole and sorts them, rather than walk the rows in
    /// their order and check each: with few matches, the rows' order finds them only at the end of the table.
    ///
    /// Sorting a rank reads every match of the search (an index cannot tell a word's rank), `total` rows. Walking reads
    /// about `rows / matches` rows for each of the `pageSize + 1` it needs, where `matches` are the rank's: a
    /// `1 / ranks` share of `total` is reckoned, when the rows are known (`Facts.largestRowNumber`). So matches are
    /// sorted only while `total` rows cost less than that walk: a category holding 13,000 of a common word's matches
    /// among 200,000 rows was sorted in 14 ms, where the walk read 800 rows in 1.
    public func walkSortsMatches(_ total: Int, _ facts: Facts, pageSize: Int, ranks: Int) -> Bool {
        guard total > 0, total <= sortedMatchLimit else { return false }
        guard let largestRowNumber = facts.largestRowNumber else { return true }
        let walked = Double(pageSize + 1) * Double(largestRowNumber + 1) * Double(max(ranks, 1)) / Double(total)
        return Double(total) <= walked
    }

    /// Whether `known` matches are read from the best rank first: more than are sorted at once, or dense among the rows.
    private func isMany(_ known: Int, largestRowNumber: Int64?) -> Bool {
        known > sortedMatchLimit || largestRowNumber.map { Int64(known) * Self.denseMatches > $0 } ?? false
    }
}
