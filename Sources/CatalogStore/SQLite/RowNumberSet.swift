/// Row numbers held as one bit each: a search's matches, tested once for every entry of an index walked whole.
struct RowNumberSet {
    private var words: [UInt64]
    private(set) var count = 0

    /// A set that can hold the row numbers 0 through `largest`.
    init(largest: Int64) {
        words = Array(repeating: 0, count: Int(max(largest, 0) / 64) + 1)
    }

    mutating func insert(_ rowNumber: Int64) {
        guard rowNumber >= 0, rowNumber / 64 < words.count else { return }
        let (word, bit) = (Int(rowNumber / 64), UInt64(1) << UInt64(rowNumber % 64))
        if words[word] & bit == 0 { count += 1 }
        words[word] |= bit
    }

    func contains(_ rowNumber: Int64) -> Bool {
        guard rowNumber >= 0, rowNumber / 64 < words.count else { return false }
        return words[Int(rowNumber / 64)] & (UInt64(1) << UInt64(rowNumber % 64)) != 0
    }
}
