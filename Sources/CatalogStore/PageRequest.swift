/// A request for one page of a list.
public struct PageRequest: Sendable {
    public static let defaultPageSize = 20
    public static let maximumPageSize = 1000

    /// A field name, `-` first for descending; nil for the resource's default.
    public var ordering: String?
    public var pageSize: Int
    /// An opaque cursor from a previous page's `next` or `previous`.
    public var cursor: String?

    public init(ordering: String? = nil, pageSize: Int = defaultPageSize, cursor: String? = nil) {
        self.ordering = ordering
        self.pageSize = pageSize
        self.cursor = cursor
    }
}
