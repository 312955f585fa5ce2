import CatalogStore
import Logging
import PostgresNIO

extension PostgresCatalogStore {
    public var frequentTermsVersion: Int64? { frequentTerms.productsVersion }

    public var frequentTermsWanted: Bool { frequentTerms.wantsPrefixes }

    /// Reads the sets in one read-only snapshot: each row numbered by its place in `row_order`, with its category,
    /// brand and price; every word of the search index with how many rows hold it (`ts_stat`, which reads every row's
    /// vector); and each chosen word's and spelled-out prefix's rows, as the search of them
    /// reads them.
    public func refreshFrequentTerms(_ policy: FrequentTermPolicy) async throws -> FrequentTerms {
        let terms = try await frequentTerms.reading { prefixes in
            try await transaction(.read) { [logger] connection in
                let version = try await Self.versions(connection, logger: logger).products
                var historySeq: Int64 = 0
                for try await seq in try await connection.query("SELECT last_seq FROM history_state", logger: logger).decode(Int64.self) {
                    historySeq = seq
                }
                var rows: [(order: Int64, category: String, brand: String, price: Int64, key: String)] = []
                for try await row in try await connection.query(
                    "SELECT row_order, category, brand, price_micros, serial_code FROM products", logger: logger
                ).decode((Int64, String, String, Int64, String).self) {
                    rows.append(row)
                }
                // Each row is numbered by its place in `row_order`, not by `row_order` itself: an upsert takes a new one
                // for every row it writes, stored or not, so `row_order` grows with the writes, not with the products.
                rows.sort { $0.order < $1.order }
                let orders = rows.map(\.order)
                var builder = FrequentTerms.Builder(productsVersion: version, historySeq: historySeq, largestRowNumber: Int64(max(rows.count - 1, 0)))
                builder.numberRows(byPlaceIn: orders)
                for (number, row) in zip(Int64(0)..., rows) {
                    builder.assign(builder.valueNumber(row.category, in: .category), in: .category, to: number)
                    builder.assign(builder.valueNumber(row.brand, in: .brand), in: .brand, to: number)
                    builder.assignPrice(row.price, to: number)
                    builder.assignKey(row.key, to: number)
                }
                var words: [String] = []
                var holders: [Int] = []
                let vocabulary = """
                    SELECT word, ndoc FROM ts_stat('SELECT search_vector FROM products') ORDER BY word COLLATE "C"
                    """
                for try await (word, count) in try await connection.query(PostgresQuery(unsafeSQL: vocabulary), logger: logger).decode(
                    (String, Int32).self)
                {
                    words.append(word)
                    holders.append(Int(count))
                }
                // A stop cancels the refresh between two words: each is one statement, at most a second at a million products.
                // The planner reckons a search of a hundred words (a spelled-out prefix) matches a tenth of the table and
                // reads it whole, where the search index gives their rows over thirty times faster.
                try await connection.query("SET LOCAL enable_seqscan = off", logger: logger)
                for word in builder.chooseWords(from: words, rows: holders, of: rows.count, policy) {
                    try Task.checkCancellation()
                    let byRank = try await Self.rowsByRank(of: .word(word), numberedBy: orders, empty: builder.emptySet(), connection, logger: logger)
                    builder.add(word, byRank: byRank)
                }
                for prefix in builder.prefixesToSpellOut(policy) {
                    try Task.checkCancellation()
                    var others = builder.emptySet()
                    try await Self.addMatches(of: prefix.others, to: &others, numberedBy: orders, connection, logger: logger)
                    builder.add(prefix, otherRows: others)
                }
                return try await Self.withPrefixes(prefixes, builder.build(), connection, logger: logger)
            }
        }
        frequentTerms.install(terms)
        return terms
    }

    /// Brings the sets forward in one read-only snapshot (`advanced`), with the sets of the prefixes reads asked for.
    public func advanceFrequentTerms() async throws -> FrequentTerms? {
        guard let base = frequentTerms.latest else { return nil }
        let advanced = try await frequentTerms.reading { prefixes in
            try await transaction(.read) { [logger] connection in
                try await Self.advanced(base, limit: FrequentTerms.advanceLimit, prefixes: prefixes, connection, logger: logger)
            }
        }
        if let advanced { frequentTerms.install(advanced) }
        return advanced
    }

    /// The most changes since the sets that a write brings them forward by, in its own transaction
    /// (`advancedInWrite`); past it, FrequentTermsService does, after the commit.
    static let writeAdvanceLimit = 1_000

    /// `base` brought forward by a write's transaction on `connection`, once its changes are recorded: installed as it
    /// commits, the sets are never behind that write for this process's reads, which would otherwise each read the
    /// changes since them until FrequentTermsService, woken by the commit's announcement, brought them forward. In a
    /// savepoint: a failure leaves the write as it was, and the sets to FrequentTermsService. Nil when there are no
    /// sets, more than `writeAdvanceLimit` changes since them, or they must be read whole.
    static func advancedInWrite(
        _ base: FrequentTerms?, to productsVersion: Int64, _ connection: PostgresConnection, logger: Logger
    ) async -> FrequentTerms? {
        // Each change takes a seq: an import's many changes are not read here at all.
        guard let base, productsVersion - base.historySeq <= writeAdvanceLimit else { return nil }
        do {
            try await connection.query("SAVEPOINT frequent_terms", logger: logger)
        } catch {
            return nil
        }
        do {
            // The prefixes the sets hold already: a prefix's rows are read in the background, not in a write.
            let advanced = try await advanced(base, limit: writeAdvanceLimit, prefixes: base.widePrefixes, connection, logger: logger)
            try await connection.query("RELEASE SAVEPOINT frequent_terms", logger: logger)
            return advanced
        } catch {
            _ = try? await connection.query("ROLLBACK TO SAVEPOINT frequent_terms", logger: logger)
            return nil
        }
    }

    /// `base` brought forward to the snapshot of `connection`: the rows changed since it, at most `limit`, each with
    /// the lexemes of its search vector (`FrequentTerms.advanced`), with the sets of `prefixes` (`withPrefixes`). Nil
    /// past `limit`, and when a row stored since it has an order below its last one, which a place past its own would
    /// misnumber: the sets are then read whole again.
    static func advanced(
        _ base: FrequentTerms, limit: Int, prefixes: [String], _ connection: PostgresConnection, logger: Logger
    ) async throws -> FrequentTerms? {
        let (versions, changed) = try await PostgresCurrentFrequentTerms.ChangedRows.read(since: base, limit: limit, connection, logger: logger)
        guard versions.products > base.productsVersion else { return try await withPrefixes(prefixes, base, connection, logger: logger) }
        guard let changed, (changed.newOrders.first ?? .max) > (base.rowOrders.last ?? .min) else { return nil }
        var products: [ChangedProduct] = []
        var words: [(row: Int64, words: [(word: String, rank: Int)])] = []
        let rank = PostgresSearchIndex.products.wordRankExpression("word.weights")
        let query: PostgresQuery = """
            SELECT row_order, serial_code, category, brand, price_micros,
                ARRAY(SELECT word.lexeme FROM unnest(search_vector) AS word ORDER BY word.lexeme),
                ARRAY(SELECT \(unescaped: rank) FROM unnest(search_vector) AS word ORDER BY word.lexeme)
            FROM products WHERE row_order = ANY(\(Array(changed.numbers.keys)))
            """
        // A vector's lexemes are distinct: each of a row's words once, with the first rank whose columns hold it.
        for try await (order, key, category, brand, price, lexemes, ranks) in try await connection.query(query, logger: logger).decode(
            (Int64, String, String, String, Int64, [String], [Int32]).self)
        {
            guard let number = changed.numbers[order] else { continue }
            products.append(ChangedProduct(row: number, key: key, category: category, brand: brand, priceMicros: price))
            words.append((number, zip(lexemes, ranks).map { ($0, Int($1)) }))
        }
        let advanced = base.advanced(
            to: versions.products, historySeq: versions.lastSeq, touched: changed.rows, products: products,
            words: ChangedWords(byRow: words), newOrders: changed.newOrders)
        return try await withPrefixes(prefixes, advanced, connection, logger: logger)
    }

    /// Adds to `rows` the numbers of the products holding any of `words`, as the search index reads them: each
    /// product's place in `orders`, every `row_order` in order.
    static func addMatches(
        of words: [String], to rows: inout RowNumberSet, numberedBy orders: [Int64], _ connection: PostgresConnection, logger: Logger
    ) async throws {
        var selected = PostgresConditions()
        selected.addSearch(SearchQuery(parts: [.anyWord(words)]), .products)
        let query = PostgresQuery(unsafeSQL: "SELECT row_order FROM products \(selected.whereSQL)", binds: selected.binds)
        for try await order in try await connection.query(query, logger: logger).decode(Int64.self) {
            FrequentTerms.place(of: order, in: orders).map { rows.insert($0) }
        }
    }

    /// `terms` with the sets of the typed prefixes reads asked for (`FrequentTermShelf.askedPrefixes`), read from their
    /// runs in the snapshot of `connection`'s transaction, which must be the one `terms` are of; those no longer asked
    /// for dropped.
    static func withPrefixes(_ prefixes: [String], _ terms: FrequentTerms, _ connection: PostgresConnection, logger: Logger) async throws
        -> FrequentTerms
    {
        let missing = prefixes.filter { !terms.holdsPrefix($0) }
        guard !missing.isEmpty || terms.widePrefixes.contains(where: { !prefixes.contains($0) }) else { return terms }
        var read: [String: [RowNumberSet]] = [:]
        for prefix in missing {
            read[prefix] = try await rowsByRank(
                of: .prefix(prefix), numberedBy: terms.rowOrders, empty: RowNumberSet(largest: terms.largestRowNumber), connection, logger: logger)
        }
        return terms.adding(prefixes: read, keeping: Set(prefixes))
    }

    /// The rows holding `part` in each rank's columns (`ordersByRank`), numbered by their places in `orders`, each set
    /// made from `empty`.
    static func rowsByRank(
        of part: SearchQuery.Part, numberedBy orders: [Int64], empty: RowNumberSet, _ connection: PostgresConnection, logger: Logger
    ) async throws -> [RowNumberSet] {
        try await ordersByRank(of: part, connection, logger: logger).map { rankOrders in
            var rows = empty
            for order in rankOrders { FrequentTerms.place(of: order, in: orders).map { rows.insert($0) } }
            return rows
        }
    }

    /// The orders of the products holding `part` (a whole word, or a typed prefix as the runs hold its words) in each
    /// rank's columns, the first rank each holds it in, from the runs (`PostgresSearchIndex.wordRunsTable`), which the
    /// same statements as the search vectors keep: one pass over the entries, where asking the search index for each
    /// rank reads every matching row. A row holding several words of a prefix is in each of their ranks.
    static func ordersByRank(of part: SearchQuery.Part, _ connection: PostgresConnection, logger: Logger) async throws -> [[Int64]] {
        guard let runsTable = PostgresSearchIndex.products.wordRunsTable else { return [] }
        let condition: String
        let text: String
        switch part {
        case .word(let word): (condition, text) = ("word = $1", word)
        // A range of the key, in byte order (the column is `COLLATE "C"`): no word holds the last code point.
        case .prefix(let prefix): (condition, text) = ("word >= $1 AND word < $1 || chr(1114111)", prefix)
        case .phrase, .anyWord, .anyPrefix: return []
        }
        var binds = PostgresBindings()
        binds.append(text)
        let query = PostgresQuery(
            unsafeSQL: "SELECT rank, string_agg(array_send(orders), ''::bytea) AS orders FROM \(runsTable) WHERE \(condition) GROUP BY rank",
            binds: binds)
        var runs: [(rank: Int, orders: ByteBuffer)] = []
        for try await (rank, orders) in try await connection.query(query, logger: logger).decode((Int, ByteBuffer).self) {
            runs.append((rank, orders))
        }
        var byRank = try PostgresRunOrders.byRank(runs)
        if byRank.count < PostgresSearchIndex.products.fields.ranks.count {
            byRank += Array(repeating: [], count: PostgresSearchIndex.products.fields.ranks.count - byRank.count)
        }
        return byRank
    }
}
