/// One page of a SWAPI-shaped listing: `{count, next, previous, results}`.
public struct SWAPIPage: Sendable {
    public var count: Int?
    public var next: String?
    public var results: [JSONValue]

    public init(body: some Collection<UInt8>) throws(FeedError) {
        let json = try parseDocument(body)
        guard case .array(let results) = json["results"] else {
            throw FeedError("expected a SWAPI page with a \"results\" array, got \(json["results"]?.typeName ?? "no results")")
        }
        self.results = results
        switch json["next"] {
        case .string(let next): self.next = next
        case nil, .null: self.next = nil
        case .some(let other): throw FeedError("\"next\" must be a URL or null, got \(other.typeName)")
        }
        if case .number(let text) = json["count"] { count = Int(text) }
    }
}
