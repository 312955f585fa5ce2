/// A word of a search that matched nothing, and what was searched in its place (`SearchPlanner.corrected`).
public struct SearchCorrection: Sendable, Equatable {
    /// The word as typed.
    public let typed: String
    /// The words searched instead, any of them; for the word still being typed, the starts of words searched instead.
    public let searched: [String]

    public init(typed: String, searched: [String]) {
        self.typed = typed
        self.searched = searched
    }
}
