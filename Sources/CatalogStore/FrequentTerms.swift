/// The words most products hold, each with the set of products that hold it, and each product's category and brand,
/// as the products stood at one version.
///
/// An engine counts a search by walking its matches: FTS5 and a GIN index both step through the 930,000 rows of a
/// word 93 % of a million products hold, 50 to 350 ms, and facets of such a search group as many rows. With the sets,
/// the count of a search of such words is a popcount of their intersection, and its facets a pass over the bits.
///
/// The sets are only ever a second answer to a question the engine answers too: a store uses them for a read in a
/// snapshot of the same products version, and reads the engine otherwise. Each set is read from the engine's own
/// search of that word, so it matches exactly what the engine would. The row numbers are the engine's own at that
/// version (SQLite's rowid, a PostgreSQL row's place in `row_order`); they are labels within the sets, never looked up.
public struct FrequentTerms: Sendable {
    /// The products version the sets were read at.
    public let productsVersion: Int64
    /// The products' row numbers run from 0 through this one (with gaps where rows were deleted).
    public let largestRowNumber: Int64
    private let sets: [String: RowNumberSet]
    private let columns: [ProductFacetField: FacetColumn]
    private let vocabulary: Vocabulary?
    /// The rows of each spelled-out prefix of a word with a set (`Builder.prefixesToSpellOut`), by its words joined.
    private let prefixSets: [String: RowNumberSet]
    /// Each row's `price_micros`.
    private let prices: [Int64]

    /// The words that have a set, in order.
    public var terms: [String] { sets.keys.sorted() }

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
            case .prefix, .phrase: return nil
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

    /// Whether `search` matches nothing at the sets' version: a word of ASCII letters and digits the search index does
    /// not hold, or a typed prefix no word of it starts with (a typo, most often). The index's vocabulary is read with
    /// the sets; a word with any other character is left to the engine.
    public func matchesNothing(_ search: SearchQuery) -> Bool {
        guard let vocabulary else { return false }
        return search.parts.contains { part in
            switch part {
            case .word(let word): Self.term(word).map { !vocabulary.holds($0) } ?? false
            case .prefix(let prefix): Self.term(prefix).map { !vocabulary.holdsWord(startingWith: $0) } ?? false
            case .phrase, .anyWord: false
            }
        }
    }

    /// `search` with its typed prefix spelled out as the words of the search index that start with it
    /// (`SearchQuery.Part.anyWord`), when one of them has a set and the prefix has a set of its own (or all its words
    /// have one), so that its count never waits on the engine: the engine then steps through each word's matches in
    /// order and the sets count them, where a prefix would have the engine merge every word's matches first (100 ms
    /// for `lam`, which "lamp", in 93 % of a million products, starts). Unchanged otherwise.
    public func expanded(_ search: SearchQuery) -> SearchQuery {
        guard let vocabulary, case .prefix(let prefix)? = search.parts.last, let start = Self.term(prefix),
            let words = vocabulary.words(startingWith: start), words.contains(where: { sets[$0] != nil }),
            words.allSatisfy({ sets[$0] != nil }) || prefixSets[words.joined(separator: " ")] != nil
        else { return search }
        return SearchQuery(parts: search.parts.dropLast() + [.anyWord(words)])
    }

    /// The number of products of a brand, in a category and a price range when `filter` names them too, from the
    /// columns: `filter`'s count when it has no other filter and no search; nil otherwise. (Counting a brand's products
    /// walks its index: 71,000 entries, 15 ms on PostgreSQL, for a brand a fourteenth of a million products hold.)
    public func brandCount(_ filter: ProductFilter) -> Int? {
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
        for row in brands.rowValues.indices where brands.rowValues[row] == wanted {
            if let category, row >= categories.rowValues.count || categories.rowValues[row] != category { continue }
            if row >= prices.count || prices[row] < lowest || prices[row] > highest { continue }
            count += 1
        }
        return count
    }

    /// The values of `field` among `rows`, the `size` largest counts first (`FacetValue.largestFirst`).
    public func facetValues(_ field: ProductFacetField, among rows: RowNumberSet, size: Int) -> [FacetValue] {
        FacetValue.largestFirst(columns[field]?.counts(among: rows) ?? [], size: size)
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
        private let largestRowNumber: Int64
        private var sets: [String: RowNumberSet] = [:]
        private var columns: [ProductFacetField: FacetColumn]
        private var vocabulary: Vocabulary?
        private var prefixSets: [String: RowNumberSet] = [:]
        private var prices: [Int64]

        /// Sets and columns for the row numbers 0 through `largestRowNumber`, read at `productsVersion`.
        public init(productsVersion: Int64, largestRowNumber: Int64) {
            self.productsVersion = productsVersion
            self.largestRowNumber = largestRowNumber
            columns = Dictionary(uniqueKeysWithValues: ProductFacetField.allCases.map { ($0, FacetColumn(largestRowNumber: largestRowNumber)) })
            prices = Array(repeating: 0, count: Int(max(largestRowNumber, 0)) + 1)
        }

        /// Records row `rowNumber`'s `price_micros`.
        public mutating func assignPrice(_ micros: Int64, to rowNumber: Int64) {
            guard rowNumber >= 0, rowNumber < prices.count else { return }
            prices[Int(rowNumber)] = micros
        }

        /// An empty set for a term's rows.
        public func emptySet() -> RowNumberSet { RowNumberSet(largest: largestRowNumber) }

        public mutating func add(_ term: String, rows: RowNumberSet) { sets[term] = rows }

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
        /// read from the engine (10,000 rows, 12 ms, for the 102 words besides "lamp" that `lam` starts at a million
        /// products). Call it once the words' sets are added.
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
            return FrequentTerms(
                productsVersion: productsVersion, largestRowNumber: largestRowNumber, sets: sets, columns: columns, vocabulary: vocabulary,
                prefixSets: prefixSets, prices: prices)
        }
    }
}

/// A prefix spelled out as the words of the search index that start with it (`FrequentTerms.expanded`), and those of
/// them without a set.
public struct SpelledOutPrefix: Sendable {
    public let words: [String]
    public let others: [String]
}

/// One facet field's value for every row number: each value once, and a number per row that stands for it (0 for no
/// row, and for products without a brand, which are not a value of the facet). Values are told apart by their bytes,
/// as the engines compare them, not by Swift's canonical equivalence.
struct FacetColumn: Sendable {
    private var values: [String] = [""]
    private var numbers: [[UInt8]: UInt32] = [[]: 0]
    private(set) var rowValues: [UInt32]

    init(largestRowNumber: Int64) {
        rowValues = Array(repeating: 0, count: Int(max(largestRowNumber, 0)) + 1)
    }

    mutating func number(of value: String) -> UInt32 {
        let bytes = Array(value.utf8)
        if let number = numbers[bytes] { return number }
        let number = UInt32(values.count)
        values.append(value)
        numbers[bytes] = number
        return number
    }

    mutating func assign(_ number: UInt32, to rowNumber: Int64) {
        guard rowNumber >= 0, rowNumber < rowValues.count else { return }
        rowValues[Int(rowNumber)] = number
    }

    /// The rows among `rows` that hold `value`.
    func rows(holding value: String, among rows: RowNumberSet) -> RowNumberSet {
        var holding = RowNumberSet(largest: Int64(rowValues.count))
        guard let wanted = numbers[Array(value.utf8)], wanted != 0 else { return holding }
        rows.forEach { row in
            if row < rowValues.count, rowValues[row] == wanted { holding.insert(Int64(row)) }
        }
        return holding
    }

    /// The number `value` stands for in `rowValues`, nil when no row holds it.
    func number(ofStored value: String) -> UInt32? {
        numbers[Array(value.utf8)].flatMap { $0 == 0 ? nil : $0 }
    }

    /// How many of `rows` hold each value, values no row holds left out.
    func counts(among rows: RowNumberSet) -> [FacetValue] {
        var tally = [Int](repeating: 0, count: values.count)
        rowValues.withUnsafeBufferPointer { rowValues in
            rows.forEach { row in
                if row < rowValues.count { tally[Int(rowValues[row])] += 1 }
            }
        }
        return tally.indices.dropFirst().compactMap { tally[$0] > 0 ? FacetValue(value: values[$0], count: tally[$0]) : nil }
    }
}

/// The words of a search index at one version, in the order of their bytes, with how many rows hold each.
struct Vocabulary: Sendable {
    /// The most words a prefix is spelled out as: each is a term the engine steps through.
    static let maximumWords = 256

    let words: [String]
    let rows: [Int]
    let spelledOutRows: Int
    /// The words that have a set, whose rows count for nothing against `spelledOutRows`.
    var sets: Set<String> = []

    /// The words that start with `prefix`, when they are at most `maximumWords` and those without a set are held by
    /// at most `spelledOutRows` rows; nil otherwise.
    func words(startingWith prefix: String) -> [String]? {
        let start = firstIndex { !$0.utf8.lexicographicallyPrecedes(prefix.utf8) }
        var end = start
        var others = 0
        while end < words.count, words[end].utf8.starts(with: prefix.utf8) {
            if !sets.contains(words[end]) { others += rows[end] }
            end += 1
            guard end - start <= Self.maximumWords, others <= spelledOutRows else { return nil }
        }
        return end > start ? Array(words[start..<end]) : nil
    }

    func holds(_ word: String) -> Bool {
        let index = firstIndex { !$0.utf8.lexicographicallyPrecedes(word.utf8) }
        return index < words.count && words[index] == word
    }

    func holdsWord(startingWith prefix: String) -> Bool {
        let index = firstIndex { !$0.utf8.lexicographicallyPrecedes(prefix.utf8) }
        return index < words.count && words[index].utf8.starts(with: prefix.utf8)
    }

    /// The first index whose word `isAtOrAfter` holds (a binary search: the words are in order).
    private func firstIndex(_ isAtOrAfter: (String) -> Bool) -> Int {
        var (low, high) = (0, words.count)
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(words[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
