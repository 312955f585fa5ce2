/// One facet field's value for every row number: each value once, and a number per row that stands for it (0 for no
/// row, and for products without a brand, which are not a value of the facet). Values are told apart by their bytes,
/// as the engines compare them, not by Swift's canonical equivalence.
struct FacetColumn: Sendable {
    private var values: [String] = [""]
    private var numbers: [[UInt8]: UInt32] = [[]: 0]
    private(set) var rowValues: ChunkedArray<UInt32>

    init(largestRowNumber: Int64) {
        rowValues = ChunkedArray(repeating: 0, count: Int(max(largestRowNumber, 0)) + 1)
    }

    mutating func number(of value: String) -> UInt32 {
        let bytes = Array(value.utf8)
        if let number = numbers[bytes] { return number }
        let number = UInt32(values.count)
        values.append(value)
        numbers[bytes] = number
        return number
    }

    /// Records that row `rowNumber` holds the value `number` stands for, growing the column for a row numbered past
    /// it (one stored since the column was read, `FrequentTerms.advanced`).
    mutating func assign(_ number: UInt32, to rowNumber: Int64) {
        guard rowNumber >= 0 else { return }
        if rowNumber >= rowValues.count {
            guard number != 0 else { return }
            rowValues.grow(to: Int(rowNumber) + 1)
        }
        rowValues[Int(rowNumber)] = number
    }

    /// The rows among `rows` that hold `value`.
    func rows(holding value: String, among rows: RowNumberSet) -> RowNumberSet {
        var holding = RowNumberSet(largest: Int64(rowValues.count))
        guard let wanted = numbers[Array(value.utf8)], wanted != 0 else { return holding }
        var reader = rowValues.sequentialReader
        rows.forEach { row in
            if row < rowValues.count, reader.element(at: row) == wanted { holding.insert(Int64(row)) }
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
        var reader = rowValues.sequentialReader
        rows.forEach { row in
            if row < rowValues.count { tally[Int(reader.element(at: row))] += 1 }
        }
        return tally.indices.dropFirst().compactMap { tally[$0] > 0 ? FacetValue(value: values[$0], count: tally[$0]) : nil }
    }
}
