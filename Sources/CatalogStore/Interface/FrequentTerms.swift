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
/// version (SQLite's rowid, a PostgreSQL row's place in the table); they are labels within the sets, never looked up.
public struct FrequentTerms: Sendable {
    /// The products version the sets were read at.
    public let productsVersion: Int64
    private let sets: [String: RowNumberSet]
    private let columns: [ProductFacetField: FacetColumn]

    /// The words that have a set, in order.
    public var terms: [String] { sets.keys.sorted() }

    /// The rows `filter` selects, when the sets answer it: a search whose every part is a whole word with a set,
    /// beside at most a category and a brand; nil for any other filter.
    public func selection(_ filter: ProductFilter) -> RowNumberSet? {
        guard let search = filter.searchQuery, !search.matchesNothing, filter.inStock == nil, filter.minimumPrice == nil,
            filter.maximumPrice == nil
        else { return nil }
        var selected: RowNumberSet?
        for part in search.parts {
            guard case .word(let word) = part, let term = Self.term(word), let rows = sets[term] else { return nil }
            selected = selected.map { $0.intersection(rows) } ?? rows
        }
        guard var selected else { return nil }
        for (field, value) in [(ProductFacetField.category, filter.category), (.brand, filter.brand)] {
            guard let value else { continue }
            selected = columns[field]?.rows(holding: value, among: selected) ?? RowNumberSet(largest: 0)
        }
        return selected
    }

    /// The values of `field` among `rows`, the `size` largest counts first (`FacetValue.largestFirst`).
    public func facetValues(_ field: ProductFacetField, among rows: RowNumberSet, size: Int) -> [FacetValue] {
        FacetValue.largestFirst(columns[field]?.counts(among: rows) ?? [], size: size)
    }

    /// The key of `word` among the terms: ASCII letters and digits, lower case. A word with any other character has
    /// none, so that only the engines' own folding ever decides what such a word matches.
    public static func term(_ word: String) -> String? {
        guard !word.isEmpty, word.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        return word.lowercased()
    }

    /// Gathers the sets and the facet values of each row, as an engine reads them.
    public struct Builder: Sendable {
        private let productsVersion: Int64
        private let largestRowNumber: Int64
        private var sets: [String: RowNumberSet] = [:]
        private var columns: [ProductFacetField: FacetColumn]

        /// Sets and columns for the row numbers 0 through `largestRowNumber`, read at `productsVersion`.
        public init(productsVersion: Int64, largestRowNumber: Int64) {
            self.productsVersion = productsVersion
            self.largestRowNumber = largestRowNumber
            columns = Dictionary(uniqueKeysWithValues: ProductFacetField.allCases.map { ($0, FacetColumn(largestRowNumber: largestRowNumber)) })
        }

        /// An empty set for a term's rows.
        public func emptySet() -> RowNumberSet { RowNumberSet(largest: largestRowNumber) }

        public mutating func add(_ term: String, rows: RowNumberSet) { sets[term] = rows }

        /// The number that stands for `value` in `field`'s column, for `assign`.
        public mutating func valueNumber(_ value: String, in field: ProductFacetField) -> UInt32 {
            columns[field, default: FacetColumn(largestRowNumber: largestRowNumber)].number(of: value)
        }

        /// Records that row `rowNumber` holds the value `number` stands for in `field`.
        public mutating func assign(_ number: UInt32, in field: ProductFacetField, to rowNumber: Int64) {
            columns[field]?.assign(number, to: rowNumber)
        }

        public func build() -> FrequentTerms {
            FrequentTerms(productsVersion: productsVersion, sets: sets, columns: columns)
        }
    }
}

/// One facet field's value for every row number: each value once, and a number per row that stands for it (0 for no
/// row, and for products without a brand, which are not a value of the facet). Values are told apart by their bytes,
/// as the engines compare them, not by Swift's canonical equivalence.
struct FacetColumn: Sendable {
    private var values: [String] = [""]
    private var numbers: [[UInt8]: UInt32] = [[]: 0]
    private var rowValues: [UInt32]

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
