/// The frequent words' sets (`FrequentTerms`, a base read at history seq B) made exact at a read's own snapshot S.
///
/// The history lists, in the read's snapshot, every change after B. The rows those changes touched (`changedRows`: the
/// row each changed key holds at S, and the rows it held at B) are taken out of every answer of the base and read from
/// the engine as they are at S (a `ChangedRowMatcher`). Every other row is at S as it was at B, so the base answers for
/// it. A read pays for the changes since the base, not for the catalogue: a write never makes the base unusable, and
/// the base is read again in the background only to keep that cost small.
public struct CurrentFrequentTerms: Sendable {
    public let base: FrequentTerms
    /// The rows a change since the base touched: empty for a read at the base's own products version.
    public let changedRows: RowNumberSet

    /// The most changes since the base that a read applies; past it, reads are answered by the engine alone until the
    /// base is read again. Each costs a read a row looked up by key and by number, a few microseconds.
    public static let changeLimit = 5_000

    public init(base: FrequentTerms, changedRows: RowNumberSet) {
        self.base = base
        self.changedRows = changedRows
    }

    /// A changed row that a filter selects at the read's snapshot, with its facet values there.
    public struct ChangedRow: Sendable {
        public let row: Int64
        public let category: String
        public let brand: String

        public init(row: Int64, category: String, brand: String) {
            self.row = row
            self.category = category
            self.brand = brand
        }
    }

    /// The changed rows (`changedRows`) that `filter`, with `search` in place of its own, selects at the read's snapshot,
    /// as the engine reads them.
    public typealias ChangedRowMatcher = (_ filter: ProductFilter, _ search: SearchQuery?) throws -> [ChangedRow]

    /// The rows a filter selects at the read's snapshot (`selection`), and those of them changed since the base.
    public struct Selection: Sendable {
        public let rows: RowNumberSet
        public let changed: [ChangedRow]
        public var count: Int { rows.count }
    }

    /// The rows `filter` selects at the read's snapshot, when the base answers it (`FrequentTerms.selection`, with
    /// `search`, the filter's search spelled out by `expanded`); nil otherwise. The changed rows are matched with the
    /// filter's own search, as typed: a word written since the base is in no spelled-out prefix of the base's.
    public func selection(
        _ filter: ProductFilter, search: SearchQuery?, addRows: ([String], inout RowNumberSet) throws -> Void,
        matchChanged: ChangedRowMatcher
    ) throws -> Selection? {
        guard var rows = try base.selection(filter, search: search, addRows: addRows) else { return nil }
        guard changedRows.count > 0 else { return Selection(rows: rows, changed: []) }
        rows.subtract(changedRows)
        let changed = try matchChanged(filter, filter.searchQuery)
        for row in changed { rows.insert(row.row) }
        return Selection(rows: rows, changed: changed)
    }

    /// The number of products `filter` selects, when it is a brand's (`FrequentTerms.brandCount`); nil otherwise.
    public func brandCount(_ filter: ProductFilter, matchChanged: ChangedRowMatcher) throws -> Int? {
        guard changedRows.count > 0 else { return base.brandCount(filter) }
        guard let unchanged = base.brandCount(filter, excluding: changedRows) else { return nil }
        return unchanged + (try matchChanged(filter, nil)).count
    }

    /// The values of `field` among `selection`'s rows, the `size` largest counts first: the base's values for the rows
    /// no change touched, the engine's for the others.
    public func facetValues(_ field: ProductFacetField, among selection: Selection, size: Int) -> [FacetValue] {
        guard changedRows.count > 0 else { return base.facetValues(field, among: selection.rows, size: size) }
        var unchanged = selection.rows
        unchanged.subtract(changedRows)
        // Values are told apart by their bytes, as the engines compare them.
        var counts: [[UInt8]: FacetValue] = [:]
        for value in base.facetCounts(field, among: unchanged) { counts[Array(value.value.utf8)] = value }
        for row in selection.changed {
            let value = field == .category ? row.category : row.brand
            // Products without a brand hold ''; it is not a value of the facet.
            guard !value.isEmpty else { continue }
            counts[Array(value.utf8), default: FacetValue(value: value, count: 0)].count += 1
        }
        return FacetValue.largestFirst(Array(counts.values), size: size)
    }

    /// Whether `search`, as typed, matches no product at the read's snapshot, as far as the base's vocabulary tells
    /// (`FrequentTerms.matchesNothing`) and no changed row holds it.
    public func matchesNothing(_ search: SearchQuery, matchChanged: ChangedRowMatcher) throws -> Bool {
        guard base.matchesNothing(base.expanded(search)) else { return false }
        guard changedRows.count > 0 else { return true }
        return try matchChanged(ProductFilter(), search).isEmpty
    }

    /// The words the changed rows (`changedRows`) hold at the read's snapshot, as the engine's tokenizer made them.
    public typealias ChangedWords = () throws -> [String]

    /// `filter` with its search corrected (`SearchPlanner.corrected`, from the base's vocabulary and the words of the
    /// rows changed since, `changedWords`), when it may be and its search as typed matches nothing at the read's
    /// snapshot; nil otherwise. A store then reads the corrected filter in place of `filter`, its count and facets
    /// included.
    public func corrected(
        _ filter: ProductFilter, matchChanged: ChangedRowMatcher, changedWords: ChangedWords
    ) throws -> (filter: ProductFilter, corrections: [SearchCorrection])? {
        guard filter.correctsTypos, filter.correctedSearch == nil, let typed = filter.searchQuery, SearchPlanner.mayCorrect(typed, in: base),
            try matchesNothing(typed, matchChanged: matchChanged),
            let correction = SearchPlanner.corrected(typed, in: base, written: changedRows.count > 0 ? try changedWords() : [])
        else { return nil }
        var corrected = filter
        corrected.correctedSearch = correction.search
        return (corrected, correction.corrections)
    }

    /// `search` spelled out as the base spells it (`FrequentTerms.expanded`), when that selects at the read's snapshot
    /// what `search` selects: when no changed row holds a word the base did not know that starts with its prefix.
    public func expanded(_ search: SearchQuery, matchChanged: ChangedRowMatcher) throws -> SearchQuery {
        let expanded = base.expanded(search)
        guard changedRows.count > 0, expanded != search else { return expanded }
        // The spelled-out words all start with the prefix, so the same number of matches is the same matches.
        let typed = try matchChanged(ProductFilter(), search).count
        return try matchChanged(ProductFilter(), expanded).count == typed ? expanded : search
    }
}
