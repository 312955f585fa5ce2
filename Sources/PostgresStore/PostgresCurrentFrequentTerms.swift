import CatalogStore
import Logging
import PostgresNIO

/// The frequent words' sets made exact at the snapshot of a read's transaction (`CurrentFrequentTerms`), with the
/// changed rows' matches that the read asks about, read beforehand in that transaction: the sets' matcher answers
/// synchronously, and a statement per question would cost a round trip each.
struct PostgresCurrentFrequentTerms {
    let current: CurrentFrequentTerms
    let matchChanged: CurrentFrequentTerms.ChangedRowMatcher
    /// The words of the changed rows, read when the read's search may be corrected (`CurrentFrequentTerms.corrected`).
    var changedWords: [String] = []
    /// The orders of the rows a change touched, as they stand at the read's snapshot and as they stood in the base.
    var changedOrders: [Int64] = []

    /// `CurrentFrequentTerms.corrected` of `filter` with the words read beforehand.
    func corrected(_ filter: ProductFilter) throws -> (filter: ProductFilter, corrections: [SearchCorrection])? {
        let words = changedWords
        return try current.corrected(filter, matchChanged: matchChanged, changedWords: { words })
    }

    /// The rows `filter` selects with `search` (its own, or spelled out) at the read's snapshot, when the sets answer
    /// it alone; nil when a word of it has no set.
    func selection(_ filter: ProductFilter, search: SearchQuery?) throws -> CurrentFrequentTerms.Selection? {
        var answered = true
        let selected = try current.selection(filter, search: search, addRows: { _, _ in answered = false }, matchChanged: matchChanged)
        return answered ? selected : nil
    }

    /// How many products `filter` selects with `search`, when the sets tell; nil otherwise.
    func count(_ filter: ProductFilter, search: SearchQuery?) throws -> Int? {
        if let selected = try selection(filter, search: search) { return selected.count }
        return try current.brandCount(filter, matchChanged: matchChanged)
    }

    /// The searches whose changed rows' matches a read of `filter` asks for: its search as typed, and as `base` spells
    /// it out when that differs; and when `base` says it matches nothing and may correct it
    /// (`CurrentFrequentTerms.corrected`), the corrected search, spelled out too.
    static func searches(of filter: ProductFilter, in base: FrequentTerms) -> [SearchQuery] {
        guard let typed = filter.searchQuery else { return [] }
        var searches: [SearchQuery] = []
        func add(_ search: SearchQuery) {
            for each in [search, base.expanded(search)] where !searches.contains(each) { searches.append(each) }
        }
        add(typed)
        if filter.correctsTypos, filter.correctedSearch == nil, base.matchesNothing(base.expanded(typed)),
            let correction = SearchPlanner.corrected(typed, in: base)
        {
            add(correction.search)
        }
        return searches
    }

    /// `base` at a snapshot of its own version: no row changed since.
    static func unchanged(_ base: FrequentTerms) -> Self {
        Self(current: CurrentFrequentTerms(base: base, changedRows: RowNumberSet(largest: 0)), matchChanged: { _, _ in [] })
    }

    /// The versions, read with the changes since `base` (`ChangedRows.read`), and `base` made exact at that snapshot
    /// for a read of `filter` whose searches are `searches` (its own, and spelled out): no terms when the sets were
    /// read at a later products version than the snapshot's, or when the changes since them cannot be listed.
    ///
    /// The changed rows' matches are read here, in one statement, for the filter's conditions and each of `searches`:
    /// the matcher answers for those alone, as the reads that use it ask.
    static func read(
        _ base: FrequentTerms, filter: ProductFilter, searches: [SearchQuery], _ connection: PostgresConnection, logger: Logger
    ) async throws -> (versions: StoreVersions, terms: Self?) {
        let (versions, changed) = try await ChangedRows.read(since: base, limit: CurrentFrequentTerms.changeLimit, connection, logger: logger)
        guard base.productsVersion <= versions.products else { return (versions, nil) }
        guard base.productsVersion < versions.products else { return (versions, unchanged(base)) }
        guard let changed else { return (versions, nil) }
        var searches = searches
        var words: [String] = []
        // A search that may be corrected is corrected from the words of the changed rows too: their matches are read
        // for that correction as well.
        if let typed = filter.searchQuery, filter.correctsTypos, filter.correctedSearch == nil, !changed.numbers.isEmpty,
            base.matchesNothing(base.expanded(typed)), SearchPlanner.mayCorrect(typed, in: base)
        {
            words = try await changedWords(changed.numbers, connection, logger: logger)
            if let correction = SearchPlanner.corrected(typed, in: base, written: words) {
                for search in [correction.search, base.expanded(correction.search)] where !searches.contains(search) { searches.append(search) }
            }
        }
        let matches = try await changedRowMatches(changed.numbers, filter: filter, searches: searches, connection, logger: logger)
        let terms = Self(
            current: CurrentFrequentTerms(base: base, changedRows: changed.rows),
            matchChanged: { matchFilter, search in
                let searchIndex = try search.map { search in
                    guard let index = searches.firstIndex(of: search) else { throw ChangedRowsNotRead(search: search) }
                    return index
                }
                // A filter with conditions is the read's own: the reads ask for it, or for none.
                let conditioned = !matchFilter.query.conditions.isEmpty
                return matches.filter { match in
                    (!conditioned || match.passes) && (searchIndex.map { match.matches[$0] } ?? true)
                }.map(\.row)
            }, changedWords: words, changedOrders: Array(changed.numbers.keys))
        return (versions, terms)
    }

    /// The rows a change since a base touched (`CurrentFrequentTerms.changedRows`), each with its `row_order`.
    struct ChangedRows {
        let rows: RowNumberSet
        /// Each touched row's number, by its `row_order`: the rows the changed keys hold at the snapshot, and those they
        /// (and any key sharing their hash) held at the base, whether or not that order still stands.
        let numbers: [Int64: Int64]
        /// The orders of the rows numbered past the base's, ascending as their numbers are (`FrequentTerms.advanced`).
        let newOrders: [Int64]

        /// The versions at the snapshot of `connection`'s transaction, and the rows the changes after `base` touched at
        /// it, read in one statement: nil when the history no longer holds every change since the base (it was pruned),
        /// or when more than `limit` changes of products came since. A row stored since the base, whose `row_order` the
        /// base does not hold, is numbered past the base's rows.
        static func read(
            since base: FrequentTerms, limit: Int, _ connection: PostgresConnection, logger: Logger
        ) async throws -> (versions: StoreVersions, changed: Self?) {
            let query: PostgresQuery = """
                WITH recent AS (SELECT key FROM changes WHERE seq > \(base.historySeq) AND entity = 'product' LIMIT \(limit + 1))
                SELECT \(unescaped: PostgresCatalogStore.versionColumns), (SELECT MIN(seq) FROM changes) AS first_seq,
                    (SELECT COUNT(*) FROM recent) AS changes, changed.key, products.row_order
                FROM (SELECT 1) AS one LEFT JOIN (SELECT DISTINCT key FROM recent) AS changed ON true
                LEFT JOIN products ON products.serial_code = changed.key
                """
            var versions: StoreVersions?
            var (first, changes): (Int64?, Int64) = (nil, 0)
            var changed = RowNumberSet(largest: base.largestRowNumber)
            var orders: [Int64] = []
            for try await row in try await connection.query(query, logger: logger) {
                let cells = row.makeRandomAccess()
                if versions == nil {
                    versions = try PostgresCatalogStore.versions(from: cells)
                    (first, changes) = (try cells["first_seq"].decode(Int64?.self), try cells["changes"].decode(Int64.self))
                }
                guard let key = try cells["key"].decode(String?.self) else { continue }
                for row in base.keyRows.rows(of: key) { changed.insert(row) }
                if let order = try cells["row_order"].decode(Int64?.self) { orders.append(order) }
            }
            guard let versions else { throw UnreadableStoredValue(column: "versions", value: "no row") }
            // Seqs have no gaps: a first kept seq past the base's next means changes since the base were pruned.
            guard let first, first <= base.historySeq + 1, changes <= limit else { return (versions, nil) }
            var numbers = rowNumbers(of: orders, in: base)
            for number in numbers.values { changed.insert(number) }
            changed.forEach { number in
                if number < base.rowOrders.count { numbers[base.rowOrders[number]] = Int64(number) }
            }
            let newOrders = numbers.filter { $0.value >= base.rowOrders.count }.keys.sorted()
            return (versions, Self(rows: changed, numbers: numbers, newOrders: newOrders))
        }

        /// The row number of each of `orders` (`row_order`s) in `base`: its place among the base's rows, or for a row
        /// stored since, a number past them.
        private static func rowNumbers(of orders: [Int64], in base: FrequentTerms) -> [Int64: Int64] {
            var numbers: [Int64: Int64] = [:]
            var next = Int64(base.rowOrders.count)
            for order in orders.sorted() {
                if let place = FrequentTerms.place(of: order, in: base.rowOrders) {
                    numbers[order] = place
                } else {
                    numbers[order] = next
                    next += 1
                }
            }
            return numbers
        }
    }

    /// The words the changed rows (`numbers`, by `row_order`) hold in the transaction's snapshot, as their search
    /// vectors hold them.
    private static func changedWords(_ numbers: [Int64: Int64], _ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let query: PostgresQuery = """
            SELECT DISTINCT word FROM products, unnest(tsvector_to_array(search_vector)) AS word WHERE row_order = ANY(\(Array(numbers.keys)))
            """
        var words: [String] = []
        for try await word in try await connection.query(query, logger: logger).decode(String.self) { words.append(word) }
        return words
    }

    /// Each changed row (`numbers`, by `row_order`) with its facet values, whether `filter`'s conditions pass it, and
    /// whether each of `searches` matches it, as the database reads them in the transaction's snapshot.
    private static func changedRowMatches(
        _ numbers: [Int64: Int64], filter: ProductFilter, searches: [SearchQuery], _ connection: PostgresConnection, logger: Logger
    ) async throws -> [(row: CurrentFrequentTerms.ChangedRow, passes: Bool, matches: [Bool])] {
        guard !numbers.isEmpty else { return [] }
        var statement = PostgresConditions(filter.query.conditions)
        let passes = statement.clauses.isEmpty ? "TRUE" : "(" + statement.clauses.joined(separator: " AND ") + ")"
        let matches = searches.map { search in
            search.matchesNothing ? "FALSE" : "(" + PostgresSearchIndex.products.condition(search, &statement) + ")"
        }
        // The changed rows first, by their key, and the conditions on them alone: beside the search's own condition,
        // the planner may prefer the search index, which reads every match of a word most rows hold.
        let sql = """
            WITH changed AS MATERIALIZED (SELECT * FROM products WHERE row_order = ANY(\(statement.parameter(Array(numbers.keys)))))
            SELECT row_order, category, brand, \(([passes] + matches).joined(separator: ", ")) FROM changed
            """
        var found: [(row: CurrentFrequentTerms.ChangedRow, passes: Bool, matches: [Bool])] = []
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: statement.binds), logger: logger) {
            let cells = Array(row)
            let order = try cells[0].decode(Int64.self)
            guard let number = numbers[order] else { continue }
            let changedRow = CurrentFrequentTerms.ChangedRow(
                row: number, category: try cells[1].decode(String.self), brand: try cells[2].decode(String.self))
            found.append((changedRow, try cells[3].decode(Bool.self), try cells[4...].map { try $0.decode(Bool.self) }))
        }
        return found
    }
}
