/// An exact, non-negative decimal amount of money.
///
/// `text` is the amount exactly as it was given, less redundant leading zeros (served back verbatim as a
/// JSON number);
/// `micros` is the same amount in millionths, an integer any store can compare and order
/// without binary floating point.
public struct Price: Sendable, Hashable, CustomStringConvertible {
    public static let maximumFractionDigits = 6
    static let maximumIntegerDigits = 12

    public let text: String
    public let micros: Int64

    public var description: String { text }

    /// Parses a plain decimal such as `19.99`, `0.5` or `1200` (or one written with an exponent, see below).
    public init(parsing text: String) throws(RecordError) {
        guard text.utf8.first != UInt8(ascii: "-") else { throw RecordError("price must not be negative, got \(text)") }
        var plainText = text
        if let exponent = text.utf8.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            // JSON writers put small and large numbers in exponent form (0.000064 as 6.4e-05): such a price is
            // taken when it is an exact plain decimal within the limits, and kept in plain form.
            plainText = try Self.plain(mantissa: String(text[..<exponent]), exponent: String(text[text.index(after: exponent)...]), text: text)
        }
        (self.text, self.micros) = try Self.parsePlain(plainText)
    }

    /// The checked text (without redundant leading zeros) and micros of a plain decimal.
    private static func parsePlain(_ text: String) throws(RecordError) -> (text: String, micros: Int64) {
        // Byte by byte: every imported product has a price, so this is on the import's hot path.
        let utf8 = text.utf8
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
        guard (fractionDigits ?? 0) <= maximumFractionDigits else {
            throw RecordError("price has more than \(maximumFractionDigits) decimal places: \(text)")
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
                guard significantDigits <= maximumIntegerDigits else { throw RecordError("price is too large: \(text)") }
                whole = whole * 10 + digit
            }
        }
        for _ in (fractionDigits ?? 0)..<maximumFractionDigits { fraction *= 10 }
        // The text is served as a JSON number, which may not start with a redundant zero: `007.50` is `7.50`.
        let redundantZeros = utf8.prefix(integerDigits - 1).prefix { $0 == UInt8(ascii: "0") }.count
        return (redundantZeros == 0 ? text : String(text.utf8.dropFirst(redundantZeros)) ?? text, whole * 1_000_000 + fraction)
    }

    /// `6.4` and `-5` as `0.000064`; what is not a plain mantissa with a small integer exponent is refused.
    private static func plain(mantissa: String, exponent exponentText: String, text: String) throws(RecordError) -> String {
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits = { (part: Substring) in !part.isEmpty && part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
        guard let exponent = Int(exponentText), abs(exponent) <= 40, isDigits(parts[0]), parts.count == 1 || isDigits(parts[1]) else {
            throw RecordError("price must be a plain decimal number such as 19.99, got \(text)")
        }
        var digits = String(parts[0]) + (parts.count > 1 ? String(parts[1]) : "")
        var point = parts[0].count + exponent
        if point < 1 {
            digits = String(repeating: "0", count: 1 - point) + digits
            point = 1
        }
        if point > digits.count { digits += String(repeating: "0", count: point - digits.count) }
        let fraction = digits.dropFirst(point)
        return String(digits.prefix(point)) + (fraction.isEmpty ? "" : "." + fraction)
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
