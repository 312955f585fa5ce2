/// Row numbers held as one bit each: a search's matches, tested once for every entry of an index walked whole, or a
/// frequent term's rows (`FrequentTerms`), intersected with another's a machine word at a time.
public struct RowNumberSet: Sendable, Equatable {
    private var words: [UInt64]
    public private(set) var count = 0

    /// A set that can hold the row numbers 0 through `largest`.
    public init(largest: Int64) {
        words = Array(repeating: 0, count: Int(max(largest, 0) / 64) + 1)
    }

    /// Adds `rowNumber`, growing the set when it is larger than the set could hold: a row written after a base was
    /// read (`CurrentFrequentTerms`) may have a larger number than any of the base's.
    public mutating func insert(_ rowNumber: Int64) {
        guard rowNumber >= 0 else { return }
        if rowNumber / 64 >= words.count { words += Array(repeating: 0, count: Int(rowNumber / 64) + 1 - words.count) }
        let (word, bit) = (Int(rowNumber / 64), UInt64(1) << UInt64(rowNumber % 64))
        if words[word] & bit == 0 { count += 1 }
        words[word] |= bit
    }

    public func contains(_ rowNumber: Int64) -> Bool {
        guard rowNumber >= 0, rowNumber / 64 < words.count else { return false }
        return words[Int(rowNumber / 64)] & (UInt64(1) << UInt64(rowNumber % 64)) != 0
    }

    /// The row numbers both sets hold.
    public func intersection(_ other: RowNumberSet) -> RowNumberSet {
        var result = RowNumberSet(largest: 0)
        result.words = zip(words, other.words).map { $0 & $1 }
        result.count = result.words.reduce(0) { $0 + $1.nonzeroBitCount }
        return result
    }

    /// Adds the row numbers `other` holds.
    public mutating func formUnion(_ other: RowNumberSet) {
        if other.words.count > words.count { words += Array(repeating: 0, count: other.words.count - words.count) }
        for index in other.words.indices { words[index] |= other.words[index] }
        count = words.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    public mutating func remove(_ rowNumber: Int64) {
        guard contains(rowNumber) else { return }
        words[Int(rowNumber / 64)] &= ~(UInt64(1) << UInt64(rowNumber % 64))
        count -= 1
    }

    /// Removes the row numbers `other` holds.
    public mutating func subtract(_ other: RowNumberSet) {
        for index in other.words.indices where index < words.count { words[index] &= ~other.words[index] }
        count = words.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    /// Calls `body` with each row number the set holds, in ascending order.
    public func forEach(_ body: (Int) -> Void) {
        for (index, word) in words.enumerated() where word != 0 {
            var remaining = word
            while remaining != 0 {
                body(index * 64 + remaining.trailingZeroBitCount)
                remaining &= remaining - 1
            }
        }
    }
}
