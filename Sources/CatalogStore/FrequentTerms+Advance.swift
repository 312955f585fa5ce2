extension FrequentTerms {
    /// The most changes since the sets that bringing them forward applies: the work is in proportion to them; past
    /// it, the sets are read whole again.
    public static let advanceLimit = 200_000

    /// The sets brought forward to a later snapshot, at `productsVersion` where the history's last change is
    /// `historySeq`: every row a change since the sets touched (`touched`, as `CurrentFrequentTerms.changedRows`
    /// lists them) is taken out of every set and column, and those of them that stand at that snapshot (`products`,
    /// read from the engine by their row numbers, with their `words`) are put back as they stand. The work is in proportion to the
    /// changes: a row that changed no searchable field leaves every set as it was, though it is read again.
    ///
    /// The words that have a set stay those of the last whole read (`wholeReadSeq`); a word written since joins the
    /// vocabulary, so that a search of it is never answered as matching nothing. Words the changes took out of every
    /// row stay in the vocabulary, which then only sends their searches to the engine. `rowOrders` gains `newOrders`,
    /// the orders of rows numbered past the base's, in order.
    public func advanced(
        to productsVersion: Int64, historySeq: Int64, touched: RowNumberSet, products: [ChangedProduct], words: ChangedWords,
        newOrders: [Int64] = []
    ) -> FrequentTerms {
        let largest = products.reduce(largestRowNumber) { max($0, $1.row) }
        var touchedRows: [Int64] = []
        touched.forEach { touchedRows.append(Int64($0)) }
        // Each word is looked up once, with every changed row that holds it: its set, the spelled-out prefixes it is
        // in, the vocabulary. A row may go into a prefix's rows once for each of its words: a set takes it once.
        var setRows: [String: ChangedWords.Holders] = [:]
        var prefixRows = [[Int64]](repeating: [], count: prefixSetNames.count)
        var written: [String: Int] = [:]
        for holders in words.words {
            if sets[holders.word] != nil { setRows[holders.word] = holders }
            for number in prefixSetsOfWord[holders.word] ?? [] { prefixRows[number] += holders.rows }
            if vocabulary?.holds(holders.word) == false { written[holders.word] = holders.rows.count }
        }
        /// `set` without the touched rows, with `rows` added: the set itself, not a copy, when neither changes it, so
        /// that a set costs in proportion to the touched rows.
        func forward(_ set: RowNumberSet, adding rows: [Int64]) -> RowNumberSet {
            guard !rows.isEmpty || touchedRows.contains(where: set.contains) else { return set }
            var set = set
            for row in touchedRows { set.remove(row) }
            for row in rows { set.insert(row) }
            return set
        }
        var sets = self.sets
        for (word, set) in self.sets { sets[word] = forward(set, adding: setRows[word]?.rows ?? []) }
        var rankSets = self.rankSets
        for (word, cumulative) in self.rankSets {
            let holders = setRows[word].map { Array(zip($0.rows, $0.ranks)) } ?? []
            rankSets[word] = cumulative.indices.map { rank in
                forward(cumulative[rank], adding: holders.filter { _, held in held <= rank }.map { row, _ in row })
            }
        }
        var prefixRankSets = self.prefixRankSets
        for (prefix, cumulative) in self.prefixRankSets {
            // A row holding several words the prefix starts is held at the best of their ranks.
            var best: [Int64: Int] = [:]
            for holders in words.words where holders.word.utf8.starts(with: prefix.utf8) {
                for (row, rank) in zip(holders.rows, holders.ranks) { best[row] = min(best[row] ?? rank, rank) }
            }
            prefixRankSets[prefix] = cumulative.indices.map { rank in
                forward(cumulative[rank], adding: best.filter { _, held in held <= rank }.map { row, _ in row })
            }
        }
        var prefixSets = self.prefixSets
        for (number, name) in prefixSetNames.enumerated() {
            if let set = prefixSets[name] { prefixSets[name] = forward(set, adding: prefixRows[number]) }
        }
        var columns = columns
        var prices = prices
        for row in touchedRows {
            for field in ProductFacetField.allCases { columns[field]?.assign(0, to: row) }
        }
        for product in products {
            for (field, value) in [(ProductFacetField.category, product.category), (.brand, product.brand)] {
                if let number = columns[field]?.number(of: value) { columns[field]?.assign(number, to: product.row) }
            }
            prices.grow(to: Int(product.row) + 1)
            prices[Int(product.row)] = product.priceMicros
        }
        var vocabulary = vocabulary
        vocabulary?.add(written)
        return FrequentTerms(
            productsVersion: productsVersion, historySeq: historySeq,
            keyRows: keyRows.adding(products.map { (KeyRowIndex.hash($0.key), $0.row) }),
            rowOrders: newOrders.isEmpty ? rowOrders : rowOrders + newOrders, rowsNumberedByPlace: rowsNumberedByPlace,
            largestRowNumber: largest, wholeReadSeq: wholeReadSeq, sets: sets, rankSets: rankSets, prefixRankSets: prefixRankSets,
            columns: columns, vocabulary: vocabulary,
            prefixSets: prefixSets, prefixSetNames: prefixSetNames, prefixSetsOfWord: prefixSetsOfWord, prices: prices)
    }
}
