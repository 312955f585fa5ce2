/// The catalogue's two upstream feeds; also the `source` of the rows they own.
public enum FeedSource: String, Sendable, CaseIterable {
    case films
    case products

    /// The history author of this feed's import runs.
    public var author: String { "import:\(rawValue)" }
}
