/// A streamed listing was given a key it had already written: the run is read again without streaming, so
/// that the earlier record is rejected and the later one counted exactly as for a listing held whole.
public struct RepeatedListingKey: Error, Sendable, CustomStringConvertible {
    public var key: String

    public init(key: String) {
        self.key = key
    }

    public var description: String { "the listing repeats the key '\(key)'" }
}
