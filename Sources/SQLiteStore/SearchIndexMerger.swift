import GRDB

/// Merges the segments of the products' search index a step at a time after commits, the work FTS5 would otherwise do
/// inside the writes (turned off by migration v13).
///
/// FTS5 writes each transaction's words as a new segment, and merging a level's segments rewrites them, the largest
/// included: a first import's index is one segment, which the sixteenth single-product write after it rewrote whole
/// (370 ms at 200,000 products, with the reads beside it taking 4 to 11 ms instead of 1). Here each step merges at most
/// `pagesPerStep` pages in a transaction of its own on the store's writer, so a write waits for one step at most, and
/// the steps rest between them so that reads keep most of the cores. Nothing is logged: a step is maintenance no
/// answer depends on, and `SearchIndexMergerTests` shows that the segments are merged.
struct SearchIndexMerger {
    /// The pages of index one step writes: 2.9 ms at the median when a million products' index was merged with a few
    /// writes' segments (324 steps, 1.6 s in all), up to 72 ms for a step whose commit also copied the log into the
    /// file (SQLite's checkpoint every 1,000 pages), where FTS5 had done it all in one write.
    static let pagesPerStep = 64
    /// The most steps taken after one commit: the rest waits for the next. Enough for a whole index of a million
    /// products (about 35,000 pages).
    static let stepsPerCommit = 1_000
    /// The rest between two steps: about as long as a step takes.
    static let pause: Duration = .milliseconds(3)

    let store: SQLiteCatalogStore

    /// Merges after each commit the store's watch tells of (`watchCommits`), until cancelled; not at the start, so that
    /// a command that writes nothing takes no write lock. A step that fails (another process held the file's write lock
    /// past the busy timeout) is taken again after the next commit; meanwhile FTS5 merges at once a level that reaches
    /// 64 segments, so that a search never reads an unbounded number of them.
    func run() async {
        let started = try? store.currentVersions().lastSeq
        await store.watchCommits(onError: { _ in }) { seq in
            guard seq != started else { return }
            var steps = 0
            while steps < Self.stepsPerCommit, !Task.isCancelled, (try? await step()) == true {
                steps += 1
                try? await Task.sleep(for: Self.pause)
            }
        }
    }

    /// One step of merging: whether it merged anything (FTS5's `merge` command, which changes a row or none).
    func step() async throws -> Bool {
        try await store.write { db in
            let before = db.totalChangesCount
            try db.execute(
                sql: "INSERT INTO product_search (product_search, rank) VALUES ('merge', ?)", arguments: [Self.pagesPerStep])
            return db.totalChangesCount - before >= 2
        }
    }
}
