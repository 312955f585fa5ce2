/// What `SQLiteCatalogStore.backup(to:replacing:)` wrote: the copy's file, size and contents, as of the moment it copied.
public struct StoreBackup: Sendable, Equatable {
    /// Why a backup was not written; nothing is left at the destination.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The destination exists and replacing it was not asked for.
        case destinationExists(String)
        /// A journal or WAL file lies beside the destination: something uses it, or did and crashed.
        case destinationHasJournal(String)
        /// The destination is the store's own file.
        case destinationIsTheStore(String)
        /// SQLite's check of the copy found a problem; the copy was deleted.
        case copyFailedCheck(String)

        public var description: String {
            switch self {
            case .destinationExists(let path): "\(path) exists; pass --replace to overwrite it"
            case .destinationHasJournal(let path): "\(path) exists: the destination is in use or was not closed cleanly; stop its user or remove it"
            case .destinationIsTheStore(let path): "\(path) is the store itself; back up to another file"
            case .copyFailedCheck(let problem): "the copy failed SQLite's check (\(problem)); nothing was written"
            }
        }
    }

    /// The file written.
    public var path: String
    /// The copy's size on disk.
    public var bytes: Int
    public var films: Int
    public var products: Int
    public var categories: Int
    /// Entries in the change history, and the newest change token the copy holds.
    public var changes: Int
    public var lastSeq: Int64
    /// Time taken, copy and check included, in milliseconds.
    public var milliseconds: Int64

    public init(path: String, bytes: Int, films: Int, products: Int, categories: Int, changes: Int, lastSeq: Int64, milliseconds: Int64) {
        self.path = path
        self.bytes = bytes
        self.films = films
        self.products = products
        self.categories = categories
        self.changes = changes
        self.lastSeq = lastSeq
        self.milliseconds = milliseconds
    }
}
