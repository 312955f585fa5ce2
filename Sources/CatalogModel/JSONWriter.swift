/// Appends JSON to a byte buffer with keys in the order they are written.
///
/// Used instead of `JSONEncoder`, which is slow on Linux and orders keys differently from call to call;
/// a fixed order keeps response bytes stable and lets numbers such as prices be written verbatim.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8]
    private var needsComma = false

    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    public mutating func objectStart() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func objectEnd() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func arrayStart() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func arrayEnd() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes a member name; the next value written belongs to it.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
    }

    /// Writes `null` for nil, else the string.
    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    public mutating func int(_ value: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// Writes text that is already a valid JSON number (a stored price, say) without reformatting it.
    public mutating func number(literal: String) {
        separate()
        bytes.append(contentsOf: literal.utf8)
    }

    /// Writes a parsed value back out.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let text): number(literal: text)
        case .string(let text): string(text)
        case .array(let elements):
            arrayStart()
            for element in elements { self.value(element) }
            arrayEnd()
        case .object(let members):
            objectStart()
            for member in members.sortedMembers {
                key(member.name)
                self.value(member.value)
            }
            objectEnd()
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes `prefix`, `text` and `suffix` as one string: an address made of a base, a key and a path, without
    /// building it first (pages write one per row).
    public mutating func string(_ prefix: String, _ text: String, _ suffix: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendEscaping(prefix)
        appendEscaping(text)
        appendEscaping(suffix)
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        appendEscaping(text)
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaping(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            // Runs that need no escaping (nearly all text) are copied whole; rendering pages spends most of its time here.
            var runStart = 0
            for (offset, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<offset]))
                appendEscaped(byte)
                runStart = offset + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default:
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }
}
