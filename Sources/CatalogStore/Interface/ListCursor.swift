import CatalogModel
import Foundation

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
        let invalid = UnknownCursor(detail: "no page at this cursor: it is not one this service issued; follow the next or previous links")
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.count <= 4096, let data = Data(base64Encoded: base64), let json = try? JSONParser.parse(data),
            case .string(let ordering) = json["o"], case .string(let directionText) = json["d"],
            let direction = Direction(rawValue: directionText), let sortValue = Self.value(json["v"]), let key = Self.value(json["k"])
        else { throw invalid }
        self.init(ordering: ordering, direction: direction, sortValue: sortValue, key: key)
    }

    /// The cursor as URL-safe base64 of a small JSON object.
    public func encoded() -> String {
        var writer = JSONWriter(capacity: 64)
        writer.objectStart()
        writer.key("o")
        writer.string(ordering)
        writer.key("d")
        writer.string(direction.rawValue)
        for (name, value) in [("v", sortValue), ("k", key)] {
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

    /// A sort value or key read back: the sorted columns hold integers and text, so anything else names no page.
    private static func value(_ json: JSONValue?) -> Value? {
        switch json {
        case .number(let text): Int64(text).map { .integer($0) }
        case .string(let text): .text(text)
        default: nil
        }
    }
}
