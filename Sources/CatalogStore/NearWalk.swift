/// One walk of `Vocabulary.near`.
struct NearWalk {
    let words: [String]
    let rows: [Int]
    let typed: [UInt8]
    let maximumEdits: Int
    let asPrefix: Bool
    let visitLimit: Int
    var found: [Vocabulary.Near] = []
    var visited = 0

    init(words: [String], rows: [Int], typed: [UInt8], maximumEdits: Int, asPrefix: Bool, visitLimit: Int) {
        self.words = words
        self.rows = rows
        self.typed = typed
        self.maximumEdits = maximumEdits
        self.asPrefix = asPrefix
        self.visitLimit = visitLimit
    }

    /// The byte at `depth` of word `index`, or nil past its end.
    func byte(_ index: Int, at depth: Int) -> UInt8? {
        let utf8 = words[index].utf8
        guard depth < utf8.count else { return nil }
        return utf8[utf8.index(utf8.startIndex, offsetBy: depth)]
    }

    /// Visits the node of `prefix`, whose words are those of `range`; `row` is the edit distance from each start of
    /// the typed word to `prefix`, `previousRow` the one to `prefix` less its last letter (for a swap of neighbours).
    mutating func descend(prefix: [UInt8], range: Range<Int>, row: [Int], previousRow: [Int]?) {
        visited += 1
        let depth = prefix.count
        if asPrefix, row[typed.count] <= maximumEdits, depth > 0 {
            // Every word of the range starts with a prefix this near: the shortest such start stands for them all.
            found.append(Vocabulary.Near(text: String(decoding: prefix, as: UTF8.self), edits: row[typed.count], weight: range.count))
            return
        }
        var index = range.lowerBound
        while index < range.upperBound, visited < visitLimit {
            guard let letter = byte(index, at: depth) else {
                // The word that is the prefix itself.
                if !asPrefix, row[typed.count] <= maximumEdits {
                    found.append(Vocabulary.Near(text: words[index], edits: row[typed.count], weight: rows[index]))
                }
                index += 1
                continue
            }
            // The words whose letter at `depth` is `letter` follow one another: find where they end.
            var (low, high) = (index + 1, range.upperBound)
            while low < high {
                let middle = (low + high) / 2
                if let other = byte(middle, at: depth), other <= letter { low = middle + 1 } else { high = middle }
            }
            let next = nextRow(row, previousRow: previousRow, letter: letter, before: prefix.last)
            if next.min() ?? 0 <= maximumEdits {
                descend(prefix: prefix + [letter], range: index..<low, row: next, previousRow: row)
            }
            index = low
        }
    }

    /// The row of `prefix + [letter]`, from the row of `prefix` and the one before it (Damerau's optimal string
    /// alignment: a swap of neighbours is one edit).
    func nextRow(_ row: [Int], previousRow: [Int]?, letter: UInt8, before: UInt8?) -> [Int] {
        var next = [row[0] + 1]
        next.reserveCapacity(row.count)
        for column in 1..<row.count {
            let replaced = row[column - 1] + (typed[column - 1] == letter ? 0 : 1)
            var cell = min(row[column] + 1, next[column - 1] + 1, replaced)
            if let previousRow, let before, column > 1, typed[column - 1] == before, typed[column - 2] == letter {
                cell = min(cell, previousRow[column - 2] + 1)
            }
            next.append(cell)
        }
        return next
    }
}
