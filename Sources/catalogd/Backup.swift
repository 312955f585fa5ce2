import ArgumentParser
import Foundation
import SQLiteStore

extension Catalogd {
    /// Copies a live store to a file, for backups; the service may serve and import meanwhile.
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a consistent copy of the store to DEST while the service runs; refuses an existing DEST unless --replace.",
            discussion: """
                The copy is one committed state of the store (an online backup), written to a temporary file \
                beside DEST, checked, then moved into place: a failed backup leaves nothing at DEST. To restore, stop \
                the service, replace its database file with the copy (and delete the old file's -wal and -shm), start it.
                """)

        @OptionGroup var common: CommonOptions
        @Argument(help: "File to write the copy to.") var destination: String
        @Flag(help: "Overwrite DEST if it exists.") var replace = false

        func run() async throws {
            let source = common.databaseLocation
            // Opening a missing store would create an empty one and back that up.
            guard FileManager.default.fileExists(atPath: source) else {
                FileHandle.standardError.write(Data("catalogd backup: no store at \(source); pass --database or set CATALOG_DATABASE\n".utf8))
                throw ExitCode.failure
            }
            let store = try SQLiteCatalogStore(path: source)
            defer { try? store.close() }
            let backup: StoreBackup
            do {
                backup = try await store.backup(to: destination, replacing: replace)
            } catch let failure as StoreBackup.Failure {
                FileHandle.standardError.write(Data("catalogd backup: \(failure)\n".utf8))
                throw ExitCode.failure
            }
            print(
                "\(source) -> \(backup.path): \(backup.films) films, \(backup.products) products, \(backup.categories) categories, "
                    + "\(backup.changes) changes (last seq \(backup.lastSeq)), \(backup.bytes) bytes in \(backup.milliseconds) ms")
        }
    }
}
