/// An exact, non-negative decimal amount of money.
///
/// `text` is the amount exactly as it was given (served back verbatim as a JSON number);
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
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integerPart = parts[0]
        let fractionPart = parts.count > 1 ? parts[1] : ""
        guard !text.hasPrefix("-") else { throw RecordError("price must not be negative, got \(text)") }
        guard !integerPart.isEmpty, integerPart.allSatisfy(\.isASCIIDigit),
            parts.count == 1 || (!fractionPart.isEmpty && fractionPart.allSatisfy(\.isASCIIDigit))
        else {
            throw RecordError("price must be a plain decimal number such as 19.99, got \(text)")
        }
        guard fractionPart.count <= Self.maximumFractionDigits else {
            throw RecordError("price has more than \(Self.maximumFractionDigits) decimal places: \(text)")
        }
        let significantInteger = integerPart.drop { $0 == "0" }
        guard significantInteger.count <= Self.maximumIntegerDigits else {
            throw RecordError("price is too large: \(text)")
        }
        let paddedFraction = fractionPart + String(repeating: "0", count: Self.maximumFractionDigits - fractionPart.count)
        guard let whole = Int64(integerPart), let fraction = Int64(paddedFraction) else {
            throw RecordError("price must be a plain decimal number such as 19.99, got \(text)")
        }
        self.text = text
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

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
