/// A listing written while it was read gave up before the end and rolled back; the run reads the listing again
/// whole and writes it then. A repeated key does this (written, the earlier record can no longer be rejected and
/// counted as if the later one came alone), and so does an upstream too slow to keep the store's writer waiting on.
public struct StreamedListingAbandoned: Error, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "the listing was not written as it was read: \(reason)" }
}

extension StreamedListingAbandoned {
    /// How long a streamed listing's transaction waits for the next batch before it gives up, unless its store is
    /// told otherwise: the reader hands one over at least once per page.
    public static let defaultWait: Duration = .seconds(2)
}
