/// One page of a DummyJSON-shaped listing.
public struct DummyJSONPage: Sendable {
    public var products: [JSONValue]
    public var total: Int

    public init(json: JSONValue) throws(FeedError) {
        guard case .array(let products) = json["products"] else {
            throw FeedError("expected a DummyJSON page with a \"products\" array")
        }
        // An integer may be written as `215891.0` (JSON does not tell integers from other numbers).
        guard case .number(let text) = json["total"], let total = Int(text) ?? Self.integralValue(text), total >= 0 else {
            throw FeedError("expected a DummyJSON page with a non-negative integer \"total\"")
        }
        self.products = products
        self.total = total
    }

    /// `215891.0` as 215891; nil for a fraction, an exponent or anything out of range.
    static func integralValue(_ text: String) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].utf8.allSatisfy({ $0 == UInt8(ascii: "0") }) else { return nil }
        return Int(parts[0])
    }
}
