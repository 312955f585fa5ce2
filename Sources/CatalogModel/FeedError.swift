/// Why an upstream document cannot be read as the feed it should be.
public struct FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// Parses a whole feed document; a document that is not JSON throws a `FeedError`.
func parseDocument(_ body: some Collection<UInt8>) throws(FeedError) -> JSONValue {
    do {
        return try JSONParser.parse(body)
    } catch {
        throw FeedError(error.description)
    }
}
