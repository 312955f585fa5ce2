/// The outcome of one import run, as `GET /imports/{id}` and `catalogd import` show it.
public struct ImportReport: Sendable, Equatable {
    public enum Status: String, Sendable {
        case running
        case succeeded
        case failed
    }

    /// Reports keep at most this many rejection lines; `rejected` still counts them all.
    public static let maximumRejections = 1000

    public var id: Int64
    public var source: FeedSource
    public var status: Status
    /// ISO 8601 UTC timestamps.
    public var startedAt: String
    public var finishedAt: String?
    public var fetched = 0
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var deleted = 0
    public var rejected = 0
    public var rejections: [Rejection] = []
    public var error: String?
    /// Who started the run through the API (`token:NAME`); nil for the scheduler and the command line.
    public var startedBy: String?

    public init(id: Int64, source: FeedSource, status: Status, startedAt: String, startedBy: String? = nil) {
        self.id = id
        self.source = source
        self.status = status
        self.startedAt = startedAt
        self.startedBy = startedBy
    }

    /// Finishes the run as succeeded, with what its listing did to the store.
    public mutating func succeed(with counts: WriteCounts) {
        inserted = counts.inserted
        updated = counts.updated
        unchanged = counts.unchanged
        deleted = counts.deleted
        status = .succeeded
        finishedAt = Timestamp.now()
    }

    /// Adds a rejection, keeping the first `maximumRejections` lines.
    public mutating func reject(_ rejection: Rejection) {
        rejected += 1
        if rejections.count < Self.maximumRejections { rejections.append(rejection) }
    }

    /// One line in words and numbers, for logs and the terminal.
    public var summary: String {
        let outcome = "\(fetched) fetched, \(inserted) new, \(updated) updated, \(unchanged) unchanged, \(deleted) deleted, \(rejected) rejected"
        switch status {
        case .running: return "import \(id) of \(source.rawValue) running"
        case .succeeded: return "imported \(source.rawValue): \(outcome)"
        case .failed: return "import of \(source.rawValue) failed: \(error ?? "unknown error")"
        }
    }
}
