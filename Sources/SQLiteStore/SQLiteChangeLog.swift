import CatalogModel
import CatalogStore
import GRDB

/// Records the history of one write transaction: one change row per row written, with a
/// sequence number taken in order, and the resource versions bumped once at the end.
struct SQLiteChangeLog {
    let db: Database
    private var insert: StatementsBySize
    let author: String
    let at: String
    /// The seq the next change gets; rows are written with it before we know whether they change.
    private(set) var nextSeq: Int64
    private var changedFamilies: Set<ResourceFamily> = []

    init(_ db: Database, author: String) throws {
        self.db = db
        self.author = author
        // What the rows of one statement share is bound once (?1 to ?4), then each row's seq and key.
        insert = StatementsBySize { rows in
            """
            INSERT INTO changes (seq, entity, key, op, author, at)
            SELECT column1, ?1, column2, ?2, ?3, ?4 FROM (VALUES \(RowUpsert.placeholders(rows: rows, columns: 2)))
            """
        }
        self.at = Timestamp.now()
        nextSeq = try StoreVersions.lastSeq(db) + 1
    }

    /// Records that the row `key` of `entity` was written with `nextSeq`.
    mutating func record(_ entity: Change.Entity, key: String, _ operation: Change.Operation) throws {
        try record(entity, keys: [key], operation)
    }

    /// Records that the rows `keys` of `entity` were written with consecutive seqs from `nextSeq`, in one statement.
    mutating func record(_ entity: Change.Entity, keys: [String], _ operation: Change.Operation) throws {
        guard !keys.isEmpty else { return }
        let first = nextSeq
        let (author, at) = (author, at)
        try insert.statement(db, rows: keys.count).execute { row in
            row.add(entity.rawValue)
            row.add(operation.rawValue)
            row.add(author)
            row.add(at)
            for (offset, key) in keys.enumerated() {
                row.add(first + Int64(offset))
                row.add(key)
            }
        }
        changedFamilies.insert(entity.family)
        nextSeq += Int64(keys.count)
    }

    /// Moves the version of every family this transaction changed to its last seq.
    func finish() throws {
        for family in changedFamilies {
            try db.execute(sql: "UPDATE versions SET version = ? WHERE name = ?", arguments: [nextSeq - 1, family.rawValue])
        }
    }
}
