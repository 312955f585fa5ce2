/// Why one record of a feed or a request body was not accepted.
public struct RecordError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// One rejected record in an import or batch report.
public struct Rejection: Sendable, Equatable {
    /// Position of the record in the listing, counted from 0 over all pages.
    public var index: Int
    /// The record's key when it could be read.
    public var key: String?
    public var reason: String

    public init(index: Int, key: String?, reason: String) {
        self.index = index
        self.key = key
        self.reason = reason
    }
}

/// Typed field access on a JSON object, throwing a `RecordError` that names the field.
struct FieldReader {
    let members: [String: JSONValue]

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
        case .string(let value): return value
        case nil, .null: return nil
        case .some(let other): throw RecordError("\(name) must be a string, got \(other.typeName)")
        }
    }

    func integer(_ name: String) throws(RecordError) -> Int? {
        switch members[name] {
        case .number(let text):
            guard let value = Int(text) else { throw RecordError("\(name) must be an integer, got \(text)") }
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
                strings.append(value)
            }
            return strings
        case nil, .null: return []
        case .some(let other): throw RecordError("\(name) must be an array, got \(other.typeName)")
        }
    }
}

/// Collects the valid records of a listing or batch by key: a later record with the same key
/// replaces the earlier one, and the earlier one is reported.
public struct KeyedCollector<Record> {
    public private(set) var records: [Record] = []
    /// The listing position of each record in `records`.
    private var indexes: [Int] = []
    private var slots: [String: (slot: Int, index: Int)] = [:]

    public init() {}

    /// Each record with its position in the listing.
    public var indexedRecords: [(index: Int, record: Record)] {
        Array(zip(indexes, records)).map { (index: $0.0, record: $0.1) }
    }

    /// Adds the record found at `index`; returns the rejection of the record it replaces, if any.
    public mutating func add(_ record: Record, key: String, index: Int) -> Rejection? {
        guard let earlier = slots[key] else {
            slots[key] = (records.count, index)
            records.append(record)
            indexes.append(index)
            return nil
        }
        records[earlier.slot] = record
        indexes[earlier.slot] = index
        slots[key] = (earlier.slot, index)
        return Rejection(index: earlier.index, key: key, reason: "duplicate key: replaced by the record at index \(index)")
    }
}
