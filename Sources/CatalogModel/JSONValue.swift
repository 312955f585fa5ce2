/// A parsed JSON document that keeps every number as the text the producer wrote,
/// so that a price of `19.90` is never rounded through binary floating point.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's literal text, validated against the JSON grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The name of the value's JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
