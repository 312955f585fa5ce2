import HTTPTypes

/// Reading a header field's value as bytes, without splitting it into arrays or strings: every GET reads its
/// `Accept` and `Accept-Encoding`, and a browser sends long ones.
enum HeaderBytes {
    typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    /// Calls `body` with each of the elements of `value` that `separator` divides, in order: empty ones too, except
    /// after a trailing separator.
    static func forEach(in value: Bytes, separatedBy separator: UInt8, _ body: (Bytes) -> Void) {
        var rest = value
        while !rest.isEmpty {
            let end = rest.firstIndex(of: separator) ?? rest.endIndex
            body(rest[..<end])
            rest = end == rest.endIndex ? rest[end...] : rest[(end + 1)...]
        }
    }

    /// `bytes` without the spaces and tabs (HTTP's optional whitespace) around them.
    static func trimmed(_ bytes: Bytes) -> Bytes {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }

    /// Whether `bytes` spell `literal` (lowercase ASCII), in any case.
    static func equalIgnoringCase(_ bytes: Bytes, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, lower in
                byte == lower || ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) && byte | 0x20 == lower)
            }
        }
    }

    /// Calls `body` with the bytes of each field of `fields` named `name`, in order, without joining their values
    /// into a new string as `HTTPFields`' subscript does.
    static func forEachValue(of name: HTTPField.Name, in fields: HTTPFields, _ body: (Bytes) -> Void) {
        for field in fields where field.name == name {
            var value = field.value
            value.withUTF8 { body($0[...]) }
        }
    }
}
