/// An array of one value per row number, stored in chunks that are each copied on write on their own: a copy that
/// changes one element copies that element's chunk alone. The frequent words' sets are brought forward from a value
/// readers still hold (`FrequentTerms.advanced`), so a change of one product copies 16,384 of a column's values, not
/// the million of a whole column, and the work stays in proportion to the changes rather than to the catalogue.
struct ChunkedArray<Element: Sendable>: Sendable {
    /// A chunk holds `1 << chunkShift` elements: 64 KB of `UInt32`, 128 KB of `Int64`.
    static var chunkShift: Int { 14 }
    private static var chunkMask: Int { (1 << chunkShift) - 1 }

    private var storage: [[Element]] = []
    /// What a row past the end holds, and what `grow` fills with.
    private let filler: Element
    private(set) var count = 0

    init(repeating filler: Element, count: Int) {
        self.filler = filler
        grow(to: count)
    }

    /// Each chunk with the index of its first element, in order: a loop over every element reads plain arrays.
    var chunks: some Sequence<(start: Int, elements: [Element])> {
        storage.enumerated().lazy.map { ($0.offset << Self.chunkShift, $0.element) }
    }

    subscript(index: Int) -> Element {
        get { storage[index >> Self.chunkShift][index & Self.chunkMask] }
        set { storage[index >> Self.chunkShift][index & Self.chunkMask] = newValue }
    }

    /// Reads elements at rising indices, as a loop over a column does: it holds the chunk of the last index read,
    /// so that each element costs one array access, as a plain array's would.
    struct SequentialReader {
        private let array: ChunkedArray
        private var chunkNumber = -1
        private var chunk: [Element] = []

        fileprivate init(_ array: ChunkedArray) {
            self.array = array
        }

        mutating func element(at index: Int) -> Element {
            let number = index >> ChunkedArray.chunkShift
            if number != chunkNumber { (chunkNumber, chunk) = (number, array.storage[number]) }
            return chunk[index & ChunkedArray.chunkMask]
        }
    }

    var sequentialReader: SequentialReader { SequentialReader(self) }

    /// Makes the array `newCount` long, the new elements `filler`; it never shrinks.
    mutating func grow(to newCount: Int) {
        guard newCount > count else { return }
        let chunkSize = 1 << Self.chunkShift
        if let last = storage.indices.last, storage[last].count < chunkSize {
            storage[last] += Array(repeating: filler, count: min(chunkSize, newCount - last * chunkSize) - storage[last].count)
        }
        while storage.count * chunkSize < newCount {
            storage.append(Array(repeating: filler, count: min(chunkSize, newCount - storage.count * chunkSize)))
        }
        count = newCount
    }
}
