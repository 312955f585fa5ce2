/// An exact, non-negative decimal amount of money.
///
/// `text` is the amount exactly as it was given, less redundant leading zeros (served back verbatim as a
/// JSON number);
/// `micros` is the same amount in millionths, an integer that SQLite can compare and order
/// without binary floating point.
public struct Price: Sendable, Hashable, CustomStringConvertible {
    public static let maximumFractionDigits = 6
    static let maximumIntegerDigits = 12

    public let text: String
    public let micros: Int64

    public var description: String { text }

    /// Parses a plain decimal such as `19.99`, `0.5` or `1200`.
    public init(parsing text: String) throws(RecordError) {
        // Byte by byte: every imported product has a price, so this is on the import's hot path.
        let utf8 = text.utf8
        guard utf8.first != UInt8(ascii: "-") else { throw RecordError("price must not be negative, got \(text)") }
        var integerDigits = 0
        var fractionDigits: Int?
        for byte in utf8 {
            if byte == UInt8(ascii: "."), fractionDigits == nil {
                fractionDigits = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if let digits = fractionDigits { fractionDigits = digits + 1 } else { integerDigits += 1 }
            } else {
                fractionDigits = -1
                break
            }
        }
        guard integerDigits > 0, fractionDigits.map({ $0 > 0 }) ?? true else {
            throw RecordError("price must be a plain decimal number such as 19.99, got \(text)")
        }
        guard (fractionDigits ?? 0) <= Self.maximumFractionDigits else {
            throw RecordError("price has more than \(Self.maximumFractionDigits) decimal places: \(text)")
        }
        var whole: Int64 = 0
        var fraction: Int64 = 0
        var significantDigits = 0
        var inFraction = false
        for byte in utf8 {
            if byte == UInt8(ascii: ".") {
                inFraction = true
                continue
            }
            let digit = Int64(byte - UInt8(ascii: "0"))
            if inFraction {
                fraction = fraction * 10 + digit
            } else if significantDigits > 0 || digit != 0 {
                significantDigits += 1
                guard significantDigits <= Self.maximumIntegerDigits else { throw RecordError("price is too large: \(text)") }
                whole = whole * 10 + digit
            }
        }
        for _ in (fractionDigits ?? 0)..<Self.maximumFractionDigits { fraction *= 10 }
        // The text is served as a JSON number, which may not start with a redundant zero: `007.50` is `7.50`.
        let redundantZeros = utf8.prefix(integerDigits - 1).prefix { $0 == UInt8(ascii: "0") }.count
        self.text = redundantZeros == 0 ? text : String(text.utf8.dropFirst(redundantZeros)) ?? text
        self.micros = whole * 1_000_000 + fraction
    }

    /// Reads a price from a JSON number or a string holding one.
    public init(json: JSONValue?) throws(RecordError) {
        switch json {
        case .number(let text), .string(let text): try self.init(parsing: text)
        case nil, .null: throw RecordError("price is missing")
        case .some(let other): throw RecordError("price must be a number, got \(other.typeName)")
        }
    }

    /// Rebuilds a price that the store kept; trusted input.
    public init(storedText: String, micros: Int64) {
        self.text = storedText
        self.micros = micros
    }
}
