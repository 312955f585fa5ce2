/// The members of a JSON object in document order; a name given twice reads as its last value, as most parsers do.
///
/// A list rather than a dictionary: a feed's objects have a dozen members, each read once, and hashing every
/// name while parsing cost an import a fifth of its reading. Lookups scan from the end; what visits every
/// member (`sortedMembers`, equality) goes through a dictionary, so a hostile object of many members costs
/// no more than it did.
public struct JSONObject: Sendable, Equatable {
    private var members: [(name: String, value: JSONValue)]

    public init(_ members: [(name: String, value: JSONValue)] = []) {
        self.members = members
    }

    /// The value of `name` (its last one); setting replaces every value the name had.
    public subscript(name: String) -> JSONValue? {
        get {
            var index = members.endIndex
            while index > members.startIndex {
                index -= 1
                if members[index].name == name { return members[index].value }
            }
            return nil
        }
        set {
            members.removeAll { $0.name == name }
            if let newValue { members.append((name, newValue)) }
        }
    }

    /// Each name once, with its last value, in name order.
    public var sortedMembers: [(name: String, value: JSONValue)] {
        lastValues.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    private var lastValues: [String: JSONValue] {
        Dictionary(members, uniquingKeysWith: { _, last in last })
    }

    public static func == (left: JSONObject, right: JSONObject) -> Bool {
        left.lastValues == right.lastValues
    }
}
