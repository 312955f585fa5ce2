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
        guard utf8.contains(where: { $0 == Self.comma || $0 == Self.quote || $0 == Self.carriageReturn || $0 == Self.lineFeed }) else {
            bytes.append(contentsOf: utf8)
            return
        }
        bytes.append(Self.quote)
        for byte in utf8 {
            if byte == Self.quote { bytes.append(Self.quote) }
            bytes.append(byte)
        }
        bytes.append(Self.quote)
    }

    mutating func field(_ text: String) {
        var text = text
        text.withUTF8 { field($0) }
    }

    mutating func field(_ number: some BinaryInteger) {
        field(String(number))
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
