/// One rejected record in an import or batch report (an `Error` so that validation can answer a `Result`).
public struct Rejection: Error, Sendable, Equatable {
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
