/// Typed field access on a JSON object, throwing a `RecordError` that names the field.
struct FieldReader {
    let members: JSONObject

    init(_ json: JSONValue, entity: String) throws(RecordError) {
        guard case .object(let members) = json else {
            throw RecordError("\(entity) must be a JSON object, got \(json.typeName)")
        }
        self.members = members
    }

    /// The first of `names` present; every one present must be a non-empty string.
    func requiredString(_ names: String...) throws(RecordError) -> String {
        var found: String?
        for name in names {
            switch members[name] {
            case .string(let value):
                guard !value.isEmpty else { throw RecordError("\(name) must not be empty") }
                try Self.refuseNUL(value, name)
                found = found ?? value
            case nil, .null: continue
            case .some(let other): throw RecordError("\(name) must be a string, got \(other.typeName)")
            }
        }
        guard let found else { throw RecordError("\(names.joined(separator: " or ")) is missing") }
        return found
    }

    func optionalString(_ name: String) throws(RecordError) -> String? {
        switch members[name] {
        case .string(let value):
            try Self.refuseNUL(value, name)
            return value
        case nil, .null: return nil
        case .some(let other): throw RecordError("\(name) must be a string, got \(other.typeName)")
        }
    }

    /// A number JSON writes with a fraction or an exponent that is still a whole number (`38.0`, `3.8e1`), as JSON
    /// Schema's `integer` allows; exact up to 2^53.
    static func integral(_ text: String) -> Int? {
        guard let value = Double(text), value == value.rounded(), abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int(value)
    }

    func integer(_ name: String) throws(RecordError) -> Int? {
        switch members[name] {
        case .number(let text):
            guard let value = Int(text) ?? Self.integral(text) else { throw RecordError("\(name) must be an integer, got \(text)") }
            return value
        case nil, .null: return nil
        case .some(let other): throw RecordError("\(name) must be an integer, got \(other.typeName)")
        }
    }

    func stringArray(_ name: String) throws(RecordError) -> [String] {
        switch members[name] {
        case .array(let elements):
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for element in elements {
                guard case .string(let value) = element else {
                    throw RecordError("\(name) must be an array of strings, found \(element.typeName)")
                }
                try Self.refuseNUL(value, name)
                strings.append(value)
            }
            return strings
        case nil, .null: return []
        case .some(let other): throw RecordError("\(name) must be an array, got \(other.typeName)")
        }
    }

    /// JSON may write U+0000 (`\u0000`); PostgreSQL's text cannot hold it, and every store must hold the same records.
    private static func refuseNUL(_ value: String, _ name: String) throws(RecordError) {
        guard !value.utf8.contains(0) else { throw RecordError("\(name) must not contain U+0000") }
    }
}
