/// Writes JSON through a pointer into space reserved beforehand (`JSONWriter.value(reserving:_:)`): for text written
/// often, such as the rows of a page, where checking an array's capacity and uniqueness at each of many small appends
/// costs more than the writing. Every write still checks that it stays inside the reserved space.
public struct UnsafeJSONCursor {
    private let start: UnsafeMutablePointer<UInt8>
    private var next: UnsafeMutablePointer<UInt8>
    private let end: UnsafeMutablePointer<UInt8>

    init(_ space: UnsafeMutableBufferPointer<UInt8>) {
        // An empty buffer may have no address: then nothing can be written, and `room` refuses any write.
        start = space.baseAddress ?? UnsafeMutablePointer(bitPattern: 1).unsafelyUnwrapped
        next = start
        end = start + space.count
    }

    /// How many bytes were written.
    var count: Int { start.distance(to: next) }

    /// The most bytes `escaped` or `string` write for text of `count` bytes (`\u00XX` for each, at worst, and quotes).
    public static func maximumStringCount(_ count: Int) -> Int { count * 6 + 2 }
    /// The most bytes `int` writes.
    public static let maximumIntCount = 20

    private mutating func room(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(next.distance(to: end) >= count, "a JSON value outgrew the space reserved for it")
        defer { next += count }
        return next
    }

    /// Writes the program's own JSON text (punctuation and member names) as it is.
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { raw($0) }
    }

    /// Writes bytes that are JSON already.
    public mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        room(bytes.count).update(from: source, count: bytes.count)
    }

    /// Writes UTF-8 text as a JSON string.
    public mutating func string(_ text: UnsafeBufferPointer<UInt8>) {
        room(1).pointee = UInt8(ascii: "\"")
        escaped(text)
        room(1).pointee = UInt8(ascii: "\"")
    }

    /// Writes `null` for empty text, else the string: a stored value that is empty is none.
    public mutating func nonEmptyString(_ text: UnsafeBufferPointer<UInt8>) {
        if text.isEmpty { raw("null") } else { string(text) }
    }

    /// Writes UTF-8 text as the inside of a JSON string. Bytes that are not UTF-8 (written into a store by another
    /// program) are replaced as `String(decoding:as:)` replaces them, which fits the same space: U+FFFD is three
    /// bytes for each byte replaced.
    public mutating func escaped(_ text: UnsafeBufferPointer<UInt8>) {
        let start = next
        // The high bits of every byte read: any set means the text is not ASCII.
        var highBits: UInt64 = 0
        // Runs that need no escaping (nearly all text) are copied whole; eight bytes are looked at a time, and one by
        // one only where one of the eight may need escaping.
        var runStart = 0
        func look(at offset: Int) {
            let byte = text[offset]
            highBits |= UInt64(byte)
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { return }
            raw(UnsafeBufferPointer(rebasing: text[runStart..<offset]))
            escape(byte)
            runStart = offset + 1
        }
        var offset = 0
        if let base = text.baseAddress {
            while offset + 8 <= text.count {
                let word = ByteWord(base, at: offset)
                highBits |= word.value
                if word.mayContainByteBelow(0x20) || word.contains(UInt8(ascii: "\"")) || word.contains(UInt8(ascii: "\\")) {
                    for index in offset..<offset + 8 { look(at: index) }
                }
                offset += 8
            }
        }
        for index in offset..<text.count { look(at: index) }
        raw(UnsafeBufferPointer(rebasing: text[runStart...]))
        guard highBits & ByteWord.highBits != 0, !Self.isUTF8(text) else { return }
        next = start
        var repaired = String(decoding: text, as: UTF8.self)
        repaired.withUTF8 { escaped($0) }
    }

    /// Whether `bytes` are UTF-8, checked in place by the standard library's validator: every page writes its
    /// non-ASCII text through here, and `String(validating:)` would make a string of each only to throw it away.
    private static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        (try? UTF8Span(validating: Span(_unsafeElements: bytes))) != nil
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        default:
            raw("\\u00")
            let digits = room(2)
            digits[0] = Self.hexDigits[Int(byte >> 4)]
            digits[1] = Self.hexDigits[Int(byte & 0x0F)]
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Writes an integer in decimal.
    public mutating func int(_ value: Int64) {
        if value < 0 { room(1).pointee = UInt8(ascii: "-") }
        var magnitude = value.magnitude
        var count = 1
        var rest = magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        let digits = room(count)
        for index in stride(from: count - 1, through: 0, by: -1) {
            digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
    }
}
