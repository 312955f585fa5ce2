import CatalogModel

/// Rows of CSV as RFC 4180 has them: fields separated by commas and rows ended by CRLF; a field that holds a comma,
/// a double quote, a CR or an LF is quoted, its quotes doubled. Text is written as its UTF-8 bytes.
struct CSVWriter: Sendable {
    private(set) var bytes: [UInt8] = []
    /// Whether the row under way has a field: the next one follows a comma.
    private var rowHasField = false

    private static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\""), carriageReturn = UInt8(ascii: "\r"), lineFeed = UInt8(ascii: "\n")

    init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    mutating func field(_ utf8: UnsafeBufferPointer<UInt8>) {
        if rowHasField { bytes.append(Self.comma) }
        rowHasField = true
        guard Self.needsQuotes(utf8) else {
            bytes.append(contentsOf: utf8)
            return
        }
        bytes.append(Self.quote)
        // Runs between quotes are copied whole; each quote is written twice.
        var rest = utf8[...]
        while let quote = rest.firstIndex(of: Self.quote) {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: rest[...quote]))
            bytes.append(Self.quote)
            rest = rest[(quote + 1)...]
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: rest))
        bytes.append(Self.quote)
    }

    /// Whether `utf8` holds a comma, a double quote, a CR or an LF: looked at eight bytes at a time, as nearly every
    /// field holds none.
    private static func needsQuotes(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let special = { (byte: UInt8) in byte == comma || byte == quote || byte == carriageReturn || byte == lineFeed }
        var offset = 0
        if let base = utf8.baseAddress {
            while offset + 8 <= utf8.count {
                let word = ByteWord(base, at: offset)
                if word.contains(comma) || word.contains(quote) || word.contains(carriageReturn) || word.contains(lineFeed) { return true }
                offset += 8
            }
        }
        return utf8[offset...].contains(where: special)
    }

    mutating func field(_ text: String) {
        var text = text
        text.withUTF8 { field($0) }
    }

    mutating func field(_ number: some BinaryInteger) {
        guard let value = Int64(exactly: number) else { return field(String(number)) }
        // Digits from the stack, last first: a string of each costs an allocation.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            field(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    mutating func endRow() {
        bytes.append(Self.carriageReturn)
        bytes.append(Self.lineFeed)
        rowHasField = false
    }

    /// Rows that are CSV already, each ended.
    mutating func written(_ rows: ArraySlice<UInt8>) {
        bytes.append(contentsOf: rows)
    }

    /// A row of these fields.
    mutating func row(_ fields: [String]) {
        for text in fields { field(text) }
        endRow()
    }
}
