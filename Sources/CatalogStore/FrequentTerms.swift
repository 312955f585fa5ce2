/// The words most products hold, each with the set of products that hold it, and each product's category and brand,
/// as the products stood at one version.
///
/// An engine counts a search by walking its matches: FTS5 and a GIN index both step through every row of a word most
/// products hold, and facets of such a search group as many rows. With the sets,
/// the count of a search of such words is a popcount of their intersection, and its facets a pass over the bits.
///
/// The sets are only ever a second answer to a question the engine answers too: they are a base, read at one point of
/// the history, that a read at a later point makes exact by reading the rows changed since from the engine
/// (`CurrentFrequentTerms`), so that a write never makes them unusable. Each set is read from the engine's own
/// search of that word, so it matches exactly what the engine would. The row numbers are the engine's own at that
/// version (SQLite's rowid, a PostgreSQL row's place in `row_order`); they are labels within the sets, never looked up.
public struct FrequentTerms: Sendable {
    /// The products version the sets were read at.
    public let productsVersion: Int64
    /// The last change of the history the sets hold (`Change.seq`): the rows of later changes are read from the engine.
    public let historySeq: Int64
    /// The row each product key had when the sets were read.
    public let keyRows: KeyRowIndex
    /// For an engine whose row numbers are places in an order of its own (PostgreSQL's `row_order`), that order's
    /// value of each row number, ascending; empty where the row numbers are the engine's own (SQLite's rowid).
    public let rowOrders: [Int64]
    /// Whether the row numbers are places in an order of the engine's own (`rowOrders`, which may be empty), not the
    /// engine's own numbers.
    public let rowsNumberedByPlace: Bool
    /// The products' row numbers run from 0 through this one (with gaps where rows were deleted).
    public let largestRowNumber: Int64
    /// The history seq of the last time the sets were read whole from the engine, rather than brought forward
    /// (`advanced`): the words that have a set were chosen then.
    public let wholeReadSeq: Int64
    let sets: [String: RowNumberSet]
    /// For each word with a set, the rows holding it in the columns of ranks 0 through r (`SearchFields.ranks`), for
    /// each rank r before the last, whose rows are the set itself: the rank a row holds the word in is told without
    /// reading the row (`ranking`).
    let rankSets: [String: [RowNumberSet]]
    /// The rows of each typed prefix reads found wide (`FrequentTermShelf.ask`), by the prefix: those holding a word it
    /// starts in the columns of ranks 0 through r, for every rank, the last being all of them. A page of such a
    /// prefix is read from them (`SearchLead.matchesFromSets`), where the engine would read every word's entries.
    var prefixRankSets: [String: [RowNumberSet]] = [:]
    let columns: [ProductFacetField: FacetColumn]
    let vocabulary: Vocabulary?
    /// The rows of each spelled-out prefix of a word with a set (`Builder.prefixesToSpellOut`), by its words joined.
    let prefixSets: [String: RowNumberSet]
    /// The keys of `prefixSets`, in the order `prefixSetsOfWord` numbers them.
    let prefixSetNames: [String]
    /// The numbers of the `prefixSetNames` each word is one of the words of: a row holding the word belongs in their
    /// sets. Numbers, because a key holds as many as 256 words.
    let prefixSetsOfWord: [String: [Int]]
    /// Each row's `price_micros`.
    let prices: ChunkedArray<Int64>

    /// The words that have a set, in order.
    public var terms: [String] { sets.keys.sorted() }

    /// The sets of `terms` (each a word with a set), to tell the rank rows hold them all in; nil when one has none.
    public func ranking(_ terms: [String]) -> Ranking? {
        var words: [(set: RowNumberSet, cumulative: [RowNumberSet])] = []
        for term in terms {
            guard let set = sets[term], let cumulative = rankSets[term] else { return nil }
            words.append((set, cumulative))
        }
        return Ranking(words: words)
    }

    /// The sets of some words with a set, looked up once for the rows they are asked about.
    public struct Ranking: Sendable {
        let words: [(set: RowNumberSet, cumulative: [RowNumberSet])]

        /// The rank in which row `row` holds every one of the words, as the sets have it: the worst of the first ranks
        /// whose columns hold each, as the engines rank a search's match; nil when the row lacks one of them.
        public func rank(ofRow row: Int64) -> Int? {
            var rank = 0
            for word in words {
                guard word.set.contains(row) else { return nil }
                rank = max(rank, word.cumulative.firstIndex { $0.contains(row) } ?? word.cumulative.count)
            }
            return rank
        }
    }

    /// The most typed prefixes that have sets of their own (`prefixRankSets`): 125 KB at a million products for each
    /// rank a prefix's words are held in.
    public static let maximumWidePrefixes = 8
    /// How many matches a typed prefix has at least for a read of it to ask for its own sets (`FrequentTermShelf.ask`).
    public static let widePrefixMatches = 20_000

    /// The typed prefixes that have sets of their own.
    public var widePrefixes: [String] { Array(prefixRankSets.keys) }

    /// Whether `prefix` (a term) has sets of its own.
    public func holdsPrefix(_ prefix: String) -> Bool { prefixRankSets[prefix] != nil }

    /// The sets with those of `prefixes` (each a term, with its rows by rank as the engine read them at the sets'
    /// snapshot) added, and those of the prefixes not in `keeping` dropped.
    public func adding(prefixes: [String: [RowNumberSet]], keeping: Set<String>) -> FrequentTerms {
        var terms = self
        terms.prefixRankSets = prefixRankSets.filter { keeping.contains($0.key) }
        for (prefix, byRank) in prefixes { terms.prefixRankSets[prefix] = Self.cumulative(byRank, largest: largestRowNumber) }
        return terms
    }

    /// Each rank's rows with those of the ranks before: a rank that adds no row (a word no brand holds) shares the
    /// set of the ranks before it.
    static func cumulative(_ byRank: [RowNumberSet], largest: Int64) -> [RowNumberSet] {
        var cumulative = RowNumberSet(largest: largest)
        var ranked: [RowNumberSet] = []
        for rows in byRank {
            if rows.count > 0 { cumulative.formUnion(rows) }
            ranked.append(cumulative)
        }
        return ranked
    }

    /// The part of `search` a ranked page of it may be read from (`SearchLead`), with the terms of its other parts:
    /// when each other part is a whole word with a set and the lead, a whole word or a typed prefix, has none, the
    /// lead's matches are read at once and tested by the others' sets, which tell their ranks too; and a typed prefix
    /// alone when it has sets of its own. Nil for any other search of one part, of a phrase, of two parts without a
    /// set, or whose every word has one (the sets count it).
    public func lead(of search: SearchQuery) -> (part: SearchQuery.Part, others: [String])? {
        if case .prefix(let prefix)? = search.onlyPart, let term = Self.term(prefix), holdsPrefix(term) { return (.prefix(term), []) }
        guard search.parts.count > 1 else { return nil }
        var lead: SearchQuery.Part?
        var others: [String] = []
        for part in search.parts {
            if case .word(let word) = part, let term = Self.term(word), sets[term] != nil, rankSets[term] != nil {
                others.append(term)
                continue
            }
            switch part {
            case .word, .prefix:
                guard lead == nil else { return nil }
                lead = part
            case .phrase, .anyWord, .anyPrefix: return nil
            }
        }
        return lead.map { ($0, others) }
    }

    /// Whether `part`, a whole word or a typed prefix, had at most `limit` entries in the search index at the sets'
    /// version (a row for each word it holds): false for a prefix that is no term (`term`), true for a word that is
    /// none (its entries are not known), or when the index's words are unknown.
    public func part(_ part: SearchQuery.Part, holdsAtMost limit: Int) -> Bool {
        switch part {
        case .word(let word):
            guard let vocabulary, let term = Self.term(word) else { return true }
            return (vocabulary.rows(holding: term) ?? 0) <= limit
        case .prefix(let prefix):
            guard let vocabulary, let start = Self.term(prefix) else { return false }
            return vocabulary.entries(startingWith: start, upTo: limit) <= limit
        case .phrase, .anyWord, .anyPrefix:
            return false
        }
    }

    /// The row numbers of orders in the engine's own order (`rowOrders`), each looked for from the last one's place.
    public struct Numbering {
        let rowOrders: [Int64]
        let byPlace: Bool
        private var last = 0

        init(rowOrders: [Int64], byPlace: Bool) {
            self.rowOrders = rowOrders
            self.byPlace = byPlace
        }

        /// The row number of the row whose order is `order`, when the sets know it: `order` itself where the row numbers
        /// are the engine's own. Quickest when asked in ascending order: a gallop from the last place found.
        public mutating func rowNumber(ofOrder order: Int64) -> Int64? {
            guard byPlace else { return order }
            guard !rowOrders.isEmpty else { return nil }
            if last >= rowOrders.count || rowOrders[last] > order { last = 0 }
            var step = 1
            var high = last
            while high < rowOrders.count, rowOrders[high] < order {
                last = high
                high += step
                step *= 2
            }
            let found = FrequentTerms.place(of: order, in: rowOrders, within: last..<min(high + 1, rowOrders.count))
            if let found { last = Int(found) }
            return found
        }
    }

    /// The numbering of the sets' rows, for orders asked one after another.
    public func numbering() -> Numbering { Numbering(rowOrders: rowOrders, byPlace: rowsNumberedByPlace) }

    /// The place of `order` in `orders`, ascending, looked for among `places` (all of them when nil); nil when they
    /// do not hold it there.
    public static func place(of order: Int64, in orders: [Int64], within places: Range<Int>? = nil) -> Int64? {
        var (low, high) = (places?.lowerBound ?? 0, places?.upperBound ?? orders.count)
        while low < high {
            let middle = (low + high) / 2
            if orders[middle] < order { low = middle + 1 } else { high = middle }
        }
        return low < orders.count && orders[low] == order ? Int64(low) : nil
    }

    /// The rows `filter` selects, when the sets answer it: a search (`filter`'s, or `expanded` from it) whose every
    /// part is a whole word with a set, or any of several words (`SearchQuery.Part.anyWord`), beside at most a
    /// category and a brand; nil for any other filter. `addRows` adds to the set it is given the rows holding any of
    /// the words it is given, the words of an `anyWord` part that have no set, as the engine reads them.
    public func selection(
        _ filter: ProductFilter, search: SearchQuery? = nil, addRows: ([String], inout RowNumberSet) throws -> Void
    ) rethrows -> RowNumberSet? {
        // An empty category or brand is left to the engine: products without a brand hold it.
        guard let search = search ?? filter.searchQuery, !search.matchesNothing, filter.inStock == nil, filter.minimumPrice == nil,
            filter.maximumPrice == nil, filter.category?.isEmpty != true, filter.brand?.isEmpty != true
        else { return nil }
        var selected: RowNumberSet?
        for part in search.parts {
            let rows: RowNumberSet
            switch part {
            case .word(let word):
                guard let term = Self.term(word), let set = sets[term] else { return nil }
                rows = set
            case .anyWord(let words):
                if let set = prefixSets[words.joined(separator: " ")] {
                    rows = set
                    break
                }
                var any = RowNumberSet(largest: largestRowNumber)
                var others: [String] = []
                for word in words {
                    if let set = Self.term(word).flatMap({ sets[$0] }) { any.formUnion(set) } else { others.append(word) }
                }
                if !others.isEmpty { try addRows(others, &any) }
                rows = any
            case .prefix, .anyPrefix, .phrase: return nil
            }
            selected = selected.map { $0.intersection(rows) } ?? rows
        }
        guard var selected else { return nil }
        for (field, value) in [(ProductFacetField.category, filter.category), (.brand, filter.brand)] {
            guard let value else { continue }
            selected = columns[field]?.rows(holding: value, among: selected) ?? RowNumberSet(largest: 0)
        }
        return selected
    }

    /// The rows `filter` with `search` selects, when the sets alone answer it (for a store that cannot read the rows
    /// of words without a set in the same snapshot).
    public func selection(_ filter: ProductFilter, search: SearchQuery?) -> RowNumberSet? {
        var answered = true
        let selected = selection(filter, search: search) { _, _ in answered = false }
        return answered ? selected : nil
    }

    /// Whether the sets may answer something of a read of `filter`: its count and facets (each word of its search, as
    /// `expanded` spells it, has a set; or it is a brand's count), that it matches nothing, its typed prefix spelled
    /// out, or for a page (`page`), the ranks of a search read from its lead (`lead(of:)`) without other filters. A read
    /// of any other filter gains nothing from them, so it need not read the changes since them either.
    public func mayAnswer(_ filter: ProductFilter, page: Bool = true) -> Bool {
        guard let search = filter.searchQuery else {
            return filter.brand.map { !$0.isEmpty } == true && filter.category?.isEmpty != true && filter.inStock == nil
        }
        let expanded = expanded(search)
        if expanded != search || matchesNothing(expanded) { return true }
        let unfiltered = filter.inStock == nil && filter.minimumPrice == nil && filter.maximumPrice == nil
        if page, unfiltered, filter.category == nil, filter.brand == nil, lead(of: search) != nil { return true }
        return !search.matchesNothing && unfiltered
            && search.parts.allSatisfy { part in
                switch part {
                case .word(let word): Self.term(word).map { sets[$0] != nil } ?? false
                case .anyWord: true
                case .prefix, .anyPrefix, .phrase: false
                }
            }
    }

    /// Whether `search` matches nothing at the sets' version: a word of ASCII letters and digits the search index does
    /// not hold, or a typed prefix no word of it starts with (a typo, most often). The index's vocabulary is read with
    /// the sets; a word with any other character is left to the engine.
    public func matchesNothing(_ search: SearchQuery) -> Bool {
        guard let vocabulary else { return false }
        return search.parts.contains { part in
            switch part {
            case .word(let word): Self.term(word).map { !vocabulary.holds($0) } ?? false
            case .prefix(let prefix): Self.term(prefix).map { !vocabulary.holdsWord(startingWith: $0) } ?? false
            case .phrase, .anyWord, .anyPrefix: false
            }
        }
    }

    /// `search` with its typed prefix spelled out as the words of the search index that start with it
    /// (`SearchQuery.Part.anyWord`), when one of them has a set and the prefix has a set of its own (or all its words
    /// have one), so that its count never waits on the engine: the engine then steps through each word's matches in
    /// order and the sets count them, where a prefix would have the engine merge every word's matches first (for
    /// `lam`, the matches of "lamp", which most products hold, and of every other word it starts). Unchanged otherwise.
    public func expanded(_ search: SearchQuery) -> SearchQuery {
        guard let vocabulary, case .prefix(let prefix)? = search.parts.last, let start = Self.term(prefix),
            let words = vocabulary.words(startingWith: start), words.contains(where: { sets[$0] != nil }),
            words.allSatisfy({ sets[$0] != nil }) || prefixSets[words.joined(separator: " ")] != nil
        else { return search }
        return SearchQuery(parts: search.parts.dropLast() + [.anyWord(words)])
    }

    /// The number of products of a brand, in a category and a price range when `filter` names them too, from the
    /// columns: `filter`'s count when it has no other filter and no search; nil otherwise. (Counting a brand's products
    /// walks its index, whose entries grow with the brand's products.)
    public func brandCount(_ filter: ProductFilter, excluding excluded: RowNumberSet? = nil) -> Int? {
        // A value no product holds counts none; an empty one is left to the engine (products without a brand hold it).
        guard let brand = filter.brand, !brand.isEmpty, filter.category?.isEmpty != true, filter.searchQuery == nil, filter.inStock == nil,
            let brands = columns[.brand], let categories = columns[.category]
        else { return nil }
        guard let wanted = brands.number(ofStored: brand) else { return 0 }
        var category: UInt32?
        if let name = filter.category {
            guard let number = categories.number(ofStored: name) else { return 0 }
            category = number
        }
        let (lowest, highest) = (filter.minimumPrice?.micros ?? .min, filter.maximumPrice?.micros ?? .max)
        var count = 0
        for (start, chunk) in brands.rowValues.chunks {
            for (offset, number) in chunk.enumerated() where number == wanted {
                let row = start + offset
                if let excluded, excluded.contains(Int64(row)) { continue }
                if let category, row >= categories.rowValues.count || categories.rowValues[row] != category { continue }
                if row >= prices.count || prices[row] < lowest || prices[row] > highest { continue }
                count += 1
            }
        }
        return count
    }

    /// The values of `field` among `rows`, the `size` largest counts first (`FacetValue.largestFirst`).
    public func facetValues(_ field: ProductFacetField, among rows: RowNumberSet, size: Int) -> [FacetValue] {
        FacetValue.largestFirst(facetCounts(field, among: rows), size: size)
    }

    /// How many of `rows` hold each value of `field`, every value some row holds.
    public func facetCounts(_ field: ProductFacetField, among rows: RowNumberSet) -> [FacetValue] {
        columns[field]?.counts(among: rows) ?? []
    }

    /// The key of `word` among the terms: ASCII letters and digits, lower case. A word with any other character has
    /// none, so that only the engines' own folding ever decides what such a word matches; nor has one with an upper-case
    /// I, which PostgreSQL lowers by the database's locale (to ı in a Turkish one).
    public static func term(_ word: String) -> String? {
        guard !word.isEmpty, word.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "I") }) else { return nil }
        return word.lowercased()
    }

    /// Gathers the sets and the facet values of each row, as an engine reads them.
    public struct Builder: Sendable {
        private let productsVersion: Int64
        private let historySeq: Int64
        private let largestRowNumber: Int64
        private var keyEntries: [(hash: UInt64, row: Int64)] = []
        private var rowOrders: [Int64] = []
        private var rowsNumberedByPlace = false
        private var sets: [String: RowNumberSet] = [:]
        private var rankSets: [String: [RowNumberSet]] = [:]
        private var prefixRankSets: [String: [RowNumberSet]] = [:]
        private var columns: [ProductFacetField: FacetColumn]
        private var vocabulary: Vocabulary?
        private var prefixSets: [String: RowNumberSet] = [:]
        private var prices: ChunkedArray<Int64>

        /// Sets and columns for the row numbers 0 through `largestRowNumber`, read at `productsVersion`, where the
        /// history's last change is `historySeq`.
        public init(productsVersion: Int64, historySeq: Int64, largestRowNumber: Int64) {
            self.productsVersion = productsVersion
            self.historySeq = historySeq
            self.largestRowNumber = largestRowNumber
            columns = Dictionary(uniqueKeysWithValues: ProductFacetField.allCases.map { ($0, FacetColumn(largestRowNumber: largestRowNumber)) })
            prices = ChunkedArray(repeating: 0, count: Int(max(largestRowNumber, 0)) + 1)
        }

        /// Records that the row numbers are the places of `orders`, ascending, in an order of the engine's own.
        public mutating func numberRows(byPlaceIn orders: [Int64]) {
            rowOrders = orders
            rowsNumberedByPlace = true
        }

        /// Records that product `key` is row `rowNumber`.
        public mutating func assignKey(_ key: String, to rowNumber: Int64) {
            keyEntries.append((KeyRowIndex.hash(key), rowNumber))
        }

        /// Records row `rowNumber`'s `price_micros`.
        public mutating func assignPrice(_ micros: Int64, to rowNumber: Int64) {
            guard rowNumber >= 0, rowNumber < prices.count else { return }
            prices[Int(rowNumber)] = micros
        }

        /// An empty set for a term's rows.
        public func emptySet() -> RowNumberSet { RowNumberSet(largest: largestRowNumber) }

        /// Adds the set of `term` from the rows holding it in each rank's columns, `byRank[r]` for rank r
        /// (`SearchFields.ranks`): a row may be in several, and ranks by the first.
        public mutating func add(_ term: String, byRank: [RowNumberSet]) {
            var ranked = FrequentTerms.cumulative(byRank, largest: largestRowNumber)
            sets[term] = ranked.popLast() ?? emptySet()
            rankSets[term] = ranked
        }

        /// Adds the sets of `prefix`, a typed prefix reads found wide, from the rows holding a word it starts in each
        /// rank's columns (`prefixRankSets`).
        public mutating func add(prefix: String, byRank: [RowNumberSet]) {
            prefixRankSets[prefix] = FrequentTerms.cumulative(byRank, largest: largestRowNumber)
        }

        /// Takes every word of the search index, in the order of their bytes, with how many rows hold each, out of
        /// `rowCount`, and returns the words `policy` gives a set, most held first: those of ASCII letters and digits
        /// (the only ones a search's word is looked up as) held by at least its share of the rows. A prefix is spelled
        /// out only when the words without a set hold at most that share of the rows together.
        public mutating func chooseWords(
            from words: [String], rows holders: [Int], of rowCount: Int, _ policy: FrequentTermPolicy
        ) -> [String] {
            vocabulary = Vocabulary(words: words, rows: holders, spelledOutRows: Int(policy.minimumShare * Double(rowCount)))
            return words.indices.filter { FrequentTerms.term(words[$0]) == words[$0] && policy.keeps(holders[$0], of: rowCount) }
                .sorted { holders[$0] > holders[$1] }.prefix(policy.maximumTerms).map { words[$0] }
        }

        /// The prefixes of words with a set that a search may be spelled out as (`FrequentTerms.expanded`) and that
        /// words without a set start too, at most four times `policy.maximumTerms`: each gets a set of its own
        /// (`add(_:otherRows:)`), so that such a search is counted from one set, where its words without a set would be
        /// read from the engine (for `lam`, every row of the words besides "lamp" that it starts). Call it once the words'
        /// sets are added.
        public func prefixesToSpellOut(_ policy: FrequentTermPolicy) -> [SpelledOutPrefix] {
            guard var vocabulary else { return [] }
            vocabulary.sets = Set(sets.keys)
            var prefixes: [SpelledOutPrefix] = []
            var seen: Set<[String]> = []
            for word in sets.keys.sorted() {
                for length in 1...max(word.count, 1) where prefixes.count < policy.maximumTerms * 4 {
                    guard let words = vocabulary.words(startingWith: String(word.prefix(length))), seen.insert(words).inserted else { continue }
                    let others = words.filter { sets[$0] == nil }
                    if !others.isEmpty { prefixes.append(SpelledOutPrefix(words: words, others: others)) }
                }
            }
            return prefixes
        }

        /// Adds the set of `prefix`: the sets of its words that have one, and `otherRows`, the rows holding any of
        /// its others, as the engine reads them.
        public mutating func add(_ prefix: SpelledOutPrefix, otherRows: RowNumberSet) {
            var rows = otherRows
            for set in prefix.words.compactMap({ sets[$0] }) { rows.formUnion(set) }
            prefixSets[prefix.words.joined(separator: " ")] = rows
        }

        /// The number that stands for `value` in `field`'s column, for `assign`.
        public mutating func valueNumber(_ value: String, in field: ProductFacetField) -> UInt32 {
            columns[field, default: FacetColumn(largestRowNumber: largestRowNumber)].number(of: value)
        }

        /// Records that row `rowNumber` holds the value `number` stands for in `field`.
        public mutating func assign(_ number: UInt32, in field: ProductFacetField, to rowNumber: Int64) {
            columns[field]?.assign(number, to: rowNumber)
        }

        public func build() -> FrequentTerms {
            var vocabulary = vocabulary
            vocabulary?.sets = Set(sets.keys)
            let prefixSetNames = Array(prefixSets.keys)
            var prefixSetsOfWord: [String: [Int]] = [:]
            for (number, joined) in prefixSetNames.enumerated() {
                for word in joined.split(separator: " ") { prefixSetsOfWord[String(word), default: []].append(number) }
            }
            return FrequentTerms(
                productsVersion: productsVersion, historySeq: historySeq, keyRows: KeyRowIndex(keyEntries), rowOrders: rowOrders,
                rowsNumberedByPlace: rowsNumberedByPlace, largestRowNumber: largestRowNumber, wholeReadSeq: historySeq,
                sets: sets, rankSets: rankSets, prefixRankSets: prefixRankSets, columns: columns, vocabulary: vocabulary,
                prefixSets: prefixSets, prefixSetNames: prefixSetNames, prefixSetsOfWord: prefixSetsOfWord, prices: prices)
        }
    }
}
