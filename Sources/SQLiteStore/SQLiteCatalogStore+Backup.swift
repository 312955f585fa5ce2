import CatalogStore
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

extension SQLiteCatalogStore {
    /// Writes a consistent copy of the store to `destination` while it keeps serving and importing.
    ///
    /// SQLite's online backup copies the pages of one read transaction, so the copy is one committed state,
    /// whatever commits meanwhile; readers and the writer are not blocked. The copy goes to a temporary file
    /// beside `destination`, passes `PRAGMA quick_check`, and is then linked or renamed into place: a failed
    /// backup leaves nothing at `destination`. An existing `destination` is replaced only when `replacing`.
    public func backup(to destination: String, replacing: Bool = false) async throws -> StoreBackup {
        let started = ContinuousClock.now
        let target = URL(fileURLWithPath: destination).standardizedFileURL
        guard target.resolvingSymlinksInPath().path != URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path else {
            throw StoreBackup.Failure.destinationIsTheStore(target.path)
        }
        // A -wal file beside the destination belongs to whatever was there; SQLite would replay it into the copy.
        for suffix in ["-wal", "-journal"] where FileManager.default.fileExists(atPath: target.path + suffix) {
            throw StoreBackup.Failure.destinationHasJournal(target.path + suffix)
        }
        if !replacing, FileManager.default.fileExists(atPath: target.path) {
            throw StoreBackup.Failure.destinationExists(target.path)
        }
        let directory = target.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(target.lastPathComponent).partial-\(UUID().uuidString)").path
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
        }
        let copy = try DatabaseQueue(path: temporary)
        let contents: StoreBackup
        do {
            contents = try await read { db in
                // Counted and copied in one read transaction: the figures describe exactly the pages copied.
                let rows = try StoreStatistics.fetch(db)
                let contents = StoreBackup(
                    path: target.path, bytes: 0, films: rows.films, products: rows.products, categories: rows.categories, changes: rows.changes,
                    lastSeq: try StoreVersions.lastSeq(db), milliseconds: 0)
                try copy.writeWithoutTransaction { copyDB in try db.backup(to: copyDB) }
                return contents
            }
            let check = try await copy.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else { throw StoreBackup.Failure.copyFailedCheck(check.prefix(3).joined(separator: "; ")) }
            try copy.close()
        } catch {
            try? copy.close()
            throw error
        }
        try Self.moveIntoPlace(temporary, target.path, replacing: replacing)
        var backup = contents
        backup.bytes = (try FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? 0
        let elapsed = ContinuousClock.now - started
        backup.milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return backup
    }

    /// `rename(2)` replaces atomically; without `replacing`, `link(2)` refuses atomically an existing
    /// destination (one created after the check above), then the temporary name is dropped.
    private static func moveIntoPlace(_ temporary: String, _ target: String, replacing: Bool) throws {
        if !replacing {
            if link(temporary, target) == 0 {
                unlink(temporary)
                syncDirectory(of: target)
                return
            }
            let error = errno
            if error == EEXIST { throw StoreBackup.Failure.destinationExists(target) }
            // A file system without hard links: the check before the copy is all there is.
            if FileManager.default.fileExists(atPath: target) { throw StoreBackup.Failure.destinationExists(target) }
        }
        guard rename(temporary, target) == 0 else {
            let cause = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target, NSUnderlyingErrorKey: cause])
        }
        syncDirectory(of: target)
    }

    /// Makes the new name durable: a rename is written to the directory, not to the file.
    private static func syncDirectory(of path: String) {
        guard let directory = try? FileHandle(forReadingFrom: URL(fileURLWithPath: path).deletingLastPathComponent()) else { return }
        try? directory.synchronize()
        try? directory.close()
    }
}
