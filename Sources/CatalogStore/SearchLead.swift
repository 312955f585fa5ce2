/// A search of several parts read from one of them, its lead (`FrequentTerms.lead(of:)`, `SearchRead.wordEntries`):
/// the lead's matches are read at once with their ranks, and each is tested by the sets of the other words, made exact
/// at the read's snapshot, which tell the rank it holds them in without reading its row. A common word with a
/// selective one reads the selective one's matches alone, where the engine's index would step through the common
/// word's too. A typed prefix alone that has sets of its own (`fromSets`) is a lead without other words, whose matches
/// are read from those sets and the rows changed since them (`matchesFromSets`).
public struct SearchLead: Sendable {
    /// The lead alone, as the engine reads its matches.
    public let search: SearchQuery
    /// The terms of the other parts, each a word with a set.
    let otherTerms: [String]
    let terms: CurrentFrequentTerms

    /// Whether the sets hold the lead's own rows: a typed prefix reads found wide (`FrequentTerms.prefixRankSets`).
    public var fromSets: Bool { prefixSets != nil }

    private var prefixSets: [RowNumberSet]? {
        guard case .prefix(let prefix)? = search.onlyPart else { return nil }
        return terms.base.prefixRankSets[prefix]
    }

    /// The lead's matches from its own sets (`fromSets`), each in the worse of the first rank whose columns hold it and
    /// the rank its other words hold it in (`others`), dropped where one of them does not: the rows no change since the
    /// sets touched, and `changedOrders`, the orders the rows a change touched hold at the read's snapshot, left
    /// undecided for the engine. Nil when the sets do not hold the lead, or an other word has no set. The rows are set
    /// by their final rank and come out by rank and row number, which is the walk's order (the engine's own orders
    /// ascend with the row numbers): 59,000 matches in about a millisecond less than merged as orders.
    public func matchesFromSets(changedOrders: [Int64]) -> RankedMatches? {
        guard let prefixSets else { return nil }
        let base = terms.base
        let ranking = base.ranking(otherTerms)
        guard otherTerms.isEmpty || ranking != nil else { return nil }
        let empty = RowNumberSet(largest: base.largestRowNumber)
        var byFinalRank = [RowNumberSet](repeating: empty, count: prefixSets.count)
        // The rows of the ranks before, and those the engine ranks.
        var passed = terms.changedRows
        for (rank, rows) in prefixSets.enumerated() {
            var fresh = rows
            fresh.subtract(passed)
            passed.formUnion(rows)
            guard let ranking, !otherTerms.isEmpty else {
                byFinalRank[rank] = fresh
                continue
            }
            fresh.forEach { number in
                guard let other = ranking.rank(ofRow: Int64(number)) else { return }
                byFinalRank[min(max(rank, other), prefixSets.count - 1)].insert(Int64(number))
            }
        }
        var positions: [Int64] = []
        positions.reserveCapacity(byFinalRank.reduce(0) { $0 + $1.count })
        for (rank, rows) in byFinalRank.enumerated() {
            rows.forEach { number in
                if !base.rowsNumberedByPlace {
                    positions.append(RankedWalk.position(rank: rank, order: Int64(number)))
                } else if number < base.rowOrders.count {
                    positions.append(RankedWalk.position(rank: rank, order: base.rowOrders[number]))
                }
            }
        }
        return RankedMatches(positions: positions, undecided: changedOrders)
    }

    /// Whether the lead held at most `limit` entries at the sets' version, as far as the index's words tell
    /// (`FrequentTerms.part(_:holdsAtMost:)`): an engine that merges a prefix's words before it gives the first match
    /// (FTS5) pays for all of them whatever it reads, and a common word without a set is walked sooner than read.
    public func mayHoldAtMost(_ limit: Int) -> Bool {
        search.onlyPart.map { terms.base.part($0, holdsAtMost: limit) } ?? false
    }

    /// The rows a change since the sets touched (`CurrentFrequentTerms.changedRows`).
    public var changedRows: RowNumberSet { terms.changedRows }

    /// How the other words hold the row whose order in the engine's own order is `order` (SQLite's rowid,
    /// PostgreSQL's `row_order`) at the read's snapshot: undecided for a row a change since the sets touched, or
    /// stored since them. For orders asked mostly in ascending order (`RankedMatches` asks each rank's so): each
    /// order's row number is looked for from the last one's, where a search of all the rows' orders for each of
    /// 59,000 took a third of a page's time.
    public func others() -> (Int64) -> RankedMatches.OtherWords {
        var numbering = terms.base.numbering()
        let (ranking, changedRows) = (terms.base.ranking(otherTerms), terms.changedRows)
        return { order in
            guard let row = numbering.rowNumber(ofOrder: order), !changedRows.contains(row) else { return .undecided }
            return ranking?.rank(ofRow: row).map { .rank($0) } ?? .absent
        }
    }
}

extension CurrentFrequentTerms {
    /// How a ranked page of `search` is read from its lead; nil when it has none (`FrequentTerms.lead(of:)`).
    public func lead(of search: SearchQuery) -> SearchLead? {
        base.lead(of: search).map { SearchLead(search: SearchQuery(parts: [$0.part]), otherTerms: $0.others, terms: self) }
    }
}
