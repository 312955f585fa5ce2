/// The fields a list may be ordered by, as the API names them (`ordering=price`, `-` first for descending),
/// and the ordering used when a request names none. Every store accepts the same ones.
public struct ListOrdering: Sendable {
    /// The field names, in the order errors and documentation list them.
    public let fields: [String]
    /// The ordering used when a request names none: by the key, the field every page also sorts by last.
    public let defaultOrdering: String
    /// The fields that hold integers (a price in millionths); every other holds text. None is ever null.
    public let integerFields: Set<String>

    /// The ordering of a search's matches, best first (`SearchFields` ranks them), then by key.
    public static let relevance = "relevance"

    public static let films = ListOrdering(
        fields: ["director", "episode_id", "release_date", relevance, "title"], defaultOrdering: "episode_id",
        integerFields: ["episode_id", relevance])
    public static let products = ListOrdering(
        fields: ["category", "name", "price", relevance, "serial_code", "stock", "updated_at"], defaultOrdering: "serial_code",
        integerFields: ["price", relevance, "stock"])
    public static let categories = ListOrdering(
        fields: ["name", "product_count", relevance], defaultOrdering: "name", integerFields: ["product_count", relevance])
    public static let imports = ListOrdering(fields: ["id"], defaultOrdering: "-id", integerFields: ["id"])

    /// The key's field.
    public var keyField: String { defaultOrdering.hasPrefix("-") ? String(defaultOrdering.dropFirst()) : defaultOrdering }

    /// Whether `value` is of the kind `field` holds: a cursor made by hand with a text where an integer is sorted
    /// would otherwise reach the store's statement (PostgreSQL refuses to compare them).
    private func fits(_ value: ListCursor.Value, _ field: String) -> Bool {
        switch value {
        case .integer: integerFields.contains(field)
        case .text: !integerFields.contains(field)
        case .null: false
        }
    }

    /// A request's ordering and cursor, checked: the field to sort by, the direction, and where the page starts.
    public struct Resolved: Sendable {
        public var ordering: String
        public var field: String
        public var descending: Bool
        public var cursor: ListCursor?
    }

    /// Checks `request` against the allowed fields: an unknown field is an `InvalidQuery`; a cursor that is not
    /// one of ours, or belongs to another ordering, is an `UnknownCursor`.
    public func resolve(_ request: PageRequest) throws -> Resolved {
        var resolved = try resolveOrdering(request)
        let cursor = try request.cursor.map { text throws(UnknownCursor) in try ListCursor(decoding: text) }
        if let cursor, cursor.ordering != resolved.ordering {
            throw UnknownCursor(detail: "no page at this cursor: it belongs to ordering '\(cursor.ordering)', not '\(resolved.ordering)'")
        }
        if let cursor, !fits(cursor.sortValue, resolved.field) || !fits(cursor.key, keyField) { throw UnknownCursor.notIssuedHere }
        resolved.cursor = cursor
        return resolved
    }

    /// The field and direction of `request`, checked as `resolve` does, without reading its cursor: for a store
    /// choosing how to read a page before it reads it.
    public func resolveOrdering(_ request: PageRequest) throws -> Resolved {
        let ordering = request.ordering ?? defaultOrdering
        let descending = ordering.hasPrefix("-")
        let field = descending ? String(ordering.dropFirst()) : ordering
        guard fields.contains(field) else {
            throw InvalidQuery(
                parameter: "ordering",
                detail: "ordering must be one of \(fields.joined(separator: ", ")), optionally prefixed with '-'; got '\(ordering)'")
        }
        return Resolved(ordering: ordering, field: field, descending: descending, cursor: nil)
    }
}
