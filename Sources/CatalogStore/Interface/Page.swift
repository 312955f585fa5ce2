/// One page of a list, read in one transaction together with the versions it reflects.
public struct Page<Row: Sendable>: Sendable {
    public var rows: [Row]
    /// How many rows match the filters, over all pages.
    public var count: Int
    public var nextCursor: String?
    public var previousCursor: String?
    public var versions: StoreVersions

    public init(rows: [Row], count: Int, nextCursor: String?, previousCursor: String?, versions: StoreVersions) {
        self.rows = rows
        self.count = count
        self.nextCursor = nextCursor
        self.previousCursor = previousCursor
        self.versions = versions
    }
}
