import CatalogModel

/// An opaque keyset position: the ordering it belongs to, the direction, and the sort value and key of the
/// row it starts after. Every store issues and reads the same cursors, so a client's cursor stays valid
/// whichever store serves it.
public struct ListCursor: Sendable, Equatable {
    public enum Direction: String, Sendable {
        case next = "n"
        case previous = "p"
    }

    /// A sort value or key as a cursor carries it.
    public enum Value: Sendable, Equatable {
        case integer(Int64)
        case text(String)
        case null
    }

    public var ordering: String
    public var direction: Direction
    public var sortValue: Value
    public var key: Value

    public init(ordering: String, direction: Direction, sortValue: Value, key: Value) {
        self.ordering = ordering
        self.direction = direction
        self.sortValue = sortValue
        self.key = key
    }

    /// Reads a cursor this service issued; anything else names no page.
    public init(decoding text: String) throws(UnknownCursor) {
        let invalid = UnknownCursor.notIssuedHere
        guard text.utf8.count <= 4096, let bytes = Self.bytes(base64URL: text), let json = try? JSONParser.parse(bytes),
            case .string(let ordering) = json["o"], case .string(let directionText) = json["d"],
            let direction = Direction(rawValue: directionText), let key = Self.value(json["k"])
        else { throw invalid }
        // Without a sort value, the list is sorted by what the key holds.
        let sortValue: Value
        if let sortText = json["v"] {
            guard let value = Self.value(sortText) else { throw invalid }
            sortValue = value
        } else {
            sortValue = key
        }
        self.init(ordering: ordering, direction: direction, sortValue: sortValue, key: key)
    }

    /// The cursor as URL-safe base64 of a small JSON object. A sort value equal to the key (a list sorted by its
    /// key) is left out: every request for the next page carries the cursor, so it is kept short.
    public func encoded() -> String {
        var writer = JSONWriter(capacity: 64)
        writer.objectStart()
        writer.member("o", ordering)
        writer.member("d", direction.rawValue)
        for (name, value) in sortValue == key ? [("k", key)] : [("v", sortValue), ("k", key)] {
            writer.key(name)
            switch value {
            case .integer(let number): writer.int(number)
            case .text(let text): writer.string(text)
            case .null: writer.null()
            }
        }
        writer.objectEnd()
        return Self.base64URL(writer.bytes)
    }

    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Unpadded base64url (RFC 4648 §5), written directly: a page issues two cursors, and Foundation's encoder
    /// followed by three replacements cost a quarter of what rendering the page's hundred rows did.
    private static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = base64URLAlphabet
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let chunk =
                UInt32(bytes[index]) << 16 | (remaining > 1 ? UInt32(bytes[index + 1]) << 8 : 0) | (remaining > 2 ? UInt32(bytes[index + 2]) : 0)
            for position in 0..<min(4, remaining + 1) {
                text.append(alphabet[Int((chunk >> (18 - 6 * UInt32(position))) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let base64URLValues: [Int8] = {
        var values = [Int8](repeating: -1, count: 256)
        for (value, byte) in base64URLAlphabet.enumerated() { values[Int(byte)] = Int8(value) }
        return values
    }()

    /// The bytes of unpadded base64url text, as `base64URL` writes it; nil for anything else. Written directly for
    /// the same reason: the deep pages a client follows read a cursor on every request.
    private static func bytes(base64URL text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulated: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            let value = base64URLValues[Int(character)]
            guard value >= 0 else { return nil }
            accumulated = accumulated << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulated >> UInt32(bits)))
                accumulated &= (1 << UInt32(bits)) - 1
            }
        }
        // What is left over is padding of the last byte: fewer than six bits, all zero.
        guard bits < 6, accumulated == 0 else { return nil }
        return bytes
    }

    /// A sort value or key read back: the sorted columns hold integers and text, so anything else names no page.
    private static func value(_ json: JSONValue?) -> Value? {
        switch json {
        case .number(let text): Int64(text).map { .integer($0) }
        case .string(let text): .text(text)
        default: nil
        }
    }
}
