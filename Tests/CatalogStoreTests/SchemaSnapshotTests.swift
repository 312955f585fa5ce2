import CatalogTestSupport
import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing

@testable import PostgresStore
@testable import SQLiteStore

/// Each engine's schema, as a fresh store has it and as a store of every earlier migration has it once migrated, is
/// the checked-in snapshot under `Schema/`: a migration that changed after it shipped, or that depends on a Swift
/// value that changed, shows here as a difference.
///
/// `CATALOG_WRITE_SCHEMA_SNAPSHOTS=1 swift test --filter SchemaSnapshotTests` writes the snapshots instead, for a
/// new migration; the diff of the snapshot is then part of that migration's review.
@Suite("Schema snapshots")
struct SchemaSnapshotTests {
    static let logger = Logger(label: "catalogd-tests")
    static let writing = ProcessInfo.processInfo.environment["CATALOG_WRITE_SCHEMA_SNAPSHOTS"] == "1"

    @Test("A fresh store has the schema of the snapshot", arguments: StoreBackend.available)
    func freshStoreMatchesTheSnapshot(_ backend: StoreBackend) async throws {
        let schema = try await Self.schema(of: backend, migratedFirstUpTo: nil)
        try Self.compare(schema, withSnapshotOf: backend)
    }

    @Test("A store left at any earlier migration, then migrated, has the schema of the snapshot", arguments: StoreBackend.available)
    func everyEarlierStoreMigratesToTheSnapshot(_ backend: StoreBackend) async throws {
        guard !Self.writing else { return }
        let identifiers =
            switch backend {
            case .sqlite: SQLiteSchema.migrator.migrations
            case .postgres: PostgresSchema.migrations.map(\.identifier)
            }
        for identifier in identifiers.dropLast() {
            let schema = try await Self.schema(of: backend, migratedFirstUpTo: identifier)
            try Self.compare(schema, withSnapshotOf: backend, after: identifier)
        }
    }

    @Test("No migration is built from a Swift value: their files interpolate nothing")
    func migrationsAreLiteral() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        var files: [URL] = []
        for engine in ["SQLiteStore", "PostgresStore"] {
            let folder = sources.appendingPathComponent(engine).appendingPathComponent("Migrations")
            files += try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "swift" }
        }
        #expect(files.count >= 8)
        for file in files {
            let interpolating = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { $0.contains("\\(") }
            #expect(interpolating.isEmpty, "\(file.lastPathComponent) builds SQL from Swift values: \(interpolating)")
        }
    }

    static func compare(_ schema: String, withSnapshotOf backend: StoreBackend, after identifier: String? = nil) throws {
        let file = snapshotFile(of: backend)
        if writing {
            try schema.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let snapshot = try String(contentsOf: file, encoding: .utf8)
        let expected = snapshot.split(separator: "\n", omittingEmptySubsequences: false)
        let found = schema.split(separator: "\n", omittingEmptySubsequences: false)
        let missing = expected.filter { !found.contains($0) }
        let extra = found.filter { !expected.contains($0) }
        #expect(
            schema == snapshot,
            "\(backend) schema \(identifier.map { "migrated from '\($0)'" } ?? "of a fresh store") differs from \(file.lastPathComponent): missing \(missing), extra \(extra)"
        )
    }

    static func snapshotFile(of backend: StoreBackend) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Schema").appendingPathComponent("\(backend).txt")
    }

    /// The schema of a new store on `backend`, migrated first up to `identifier` and then the rest of the way.
    static func schema(of backend: StoreBackend, migratedFirstUpTo identifier: String?) async throws -> String {
        switch backend {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-schema-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let queue = try DatabaseQueue(path: directory.appendingPathComponent("catalog.sqlite").path)
            if let identifier { try SQLiteSchema.migrator.migrate(queue, upTo: identifier) }
            try SQLiteSchema.migrator.migrate(queue)
            return try await queue.read { db in try sqliteSchema(db) }
        case .postgres:
            let location = try await TestStore.freshDatabase(logger: logger)
            let connection = try await TestStore.connect(location, logger: logger)
            do {
                if let identifier { try await PostgresSchema.migrate(connection, upTo: identifier, logger: logger) }
                try await PostgresSchema.migrate(connection, logger: logger)
                let schema = try await postgresSchema(connection)
                try await connection.close()
                return schema
            } catch {
                try? await connection.close()
                throw error
            }
        }
    }

    /// `sqlite_master`, and the settings of the full-text indexes (a migration sets them as rows of their own).
    static func sqliteSchema(_ db: Database) throws -> String {
        var lines = try String.fetchAll(
            db, sql: "SELECT type || ' ' || name || ' ON ' || tbl_name || ': ' || COALESCE(sql, '') FROM sqlite_master ORDER BY type, name")
        let settings = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%search_config' ORDER BY name")
        for table in settings {
            lines += try String.fetchAll(db, sql: "SELECT '\(table): ' || k || ' = ' || v FROM \(table) ORDER BY k")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The public schema's relations, columns, constraints, indexes, triggers and functions, as PostgreSQL prints them.
    static func postgresSchema(_ connection: PostgresConnection) async throws -> String {
        let sections: [(String, String)] = [
            (
                "relations",
                """
                SELECT concat_ws(' ', relname, relkind, relpersistence) FROM pg_class
                WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'S', 'v', 'm') ORDER BY 1
                """
            ),
            (
                "columns",
                """
                SELECT concat_ws(' ', table_name || '.' || column_name, ordinal_position, data_type, collation_name, is_nullable,
                    'default', column_default, is_generated, generation_expression)
                FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position
                """
            ),
            (
                "constraints",
                """
                SELECT conrelid::regclass::text || ' ' || conname || ': ' || pg_get_constraintdef(oid) FROM pg_constraint
                WHERE connamespace = 'public'::regnamespace ORDER BY 1
                """
            ),
            ("indexes", "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname"),
            ("triggers", "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgrelid::regclass::text, tgname"),
            (
                "functions",
                """
                SELECT pg_get_functiondef(oid) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
                ORDER BY proname, pg_get_function_identity_arguments(oid)
                """
            ),
        ]
        var text = ""
        for (name, sql) in sections {
            text += "-- \(name)\n"
            for try await line in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String.self) {
                text += line + "\n"
            }
        }
        return text
    }
}
