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

    /// Writes a member: its name, then its value.
    public mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    /// Writes a member whose value is `null` for nil.
    public mutating func member(_ name: String, _ value: String?) {
        key(name)
        string(value)
    }

    public mutating func member(_ name: String, _ value: some BinaryInteger) {
        key(name)
        int(value)
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

    /// Writes one value of at most `maximumCount` bytes through `write`, straight into the buffer: for values
    /// written often, such as the rows of a page.
    public mutating func value(reserving maximumCount: Int, _ write: (inout UnsafeJSONCursor) -> Void) {
        separate()
        append(reserving: maximumCount, write)
    }

    /// Ends a line of JSON Lines (NDJSON): the next value starts the next line, with no comma before it.
    public mutating func lineEnd() {
        bytes.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    /// Writes values that are JSON already, such as the rows of a page written elsewhere.
    public mutating func json(_ values: ArraySlice<UInt8>) {
        separate()
        bytes.append(contentsOf: values)
    }

    private mutating func append(reserving maximumCount: Int, _ write: (inout UnsafeJSONCursor) -> Void) {
        let count = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: maximumCount))
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor = UnsafeJSONCursor(UnsafeMutableBufferPointer(rebasing: buffer[count...]))
            write(&cursor)
            return cursor.count
        }
        bytes.removeLast(maximumCount - written)
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        appendEscaping(text)
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaping(_ text: String) {
        var text = text
        text.withUTF8 { appendEscaping($0) }
    }

    private mutating func appendEscaping(_ utf8: UnsafeBufferPointer<UInt8>) {
        append(reserving: UnsafeJSONCursor.maximumStringCount(utf8.count)) { $0.escaped(utf8) }
    }
}
