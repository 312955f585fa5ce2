/// The `search` text every filter takes.
public enum SearchText {
    /// The longest text a store is asked to find, in bytes: engines bound the length of a match pattern, and no
    /// one searches for a page of text.
    public static let maximumBytes = 200
}
