/// Counts of one batch write: what an import or `POST /products` changed.
public struct WriteCounts: Sendable, Equatable {
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var deleted = 0

    public init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0, deleted: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
        self.deleted = deleted
    }
}
