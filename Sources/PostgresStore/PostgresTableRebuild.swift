import Logging
import PostgresNIO

/// An empty table filled in one transaction as a copy of itself that has its triggers and the indexes of its
/// constraints but none of its other indexes, which are built once its rows are in; the copy then takes the table's
/// place, its name and the names of its indexes, constraints and sequences, all before the transaction commits.
///
/// Why: PostgreSQL maintains an index row by row as rows come in, where building it afterwards sorts them once. For
/// a million products, the eight secondary indexes and the search index cost 49 s row by row and 16 s built after;
/// the words' key 47 s for their 25 million entries, against 18 s. Dropping the table's own indexes for the
/// transaction would do the same, but its lock would stop every reader of the table until the commit; the copy is
/// the transaction's own until it takes the table's place, when the lock lasts as long as renaming does.
///
/// The definitions come from the catalogue, as the migrations left them, so that the copy is the table a fresh
/// store has (tested against the schema snapshot). A table something else depends on, such as a view, cannot be
/// dropped, and the transaction then fails.
struct PostgresTableRebuild {
    /// The table replaced, in the `public` schema.
    let table: String
    /// The copy filled in its place.
    var copy: String { table + "_rebuilt" }
    /// The indexes to build after the rows: each one's name and `CREATE INDEX` statement, as PostgreSQL prints it.
    private let laterIndexes: [(name: String, definition: String)]
    /// The constraints with indexes of their own: each one's name and definition.
    private let constraints: [(name: String, definition: String)]
    /// Whether the constraints are made on the copy before its rows, so that a key given twice fails as it comes,
    /// rather than with the indexes after them.
    private let constraintsFirst: Bool
    /// The sequences owned by the table's columns (a `serial` column's), and the column of each.
    private let ownedSequences: [(sequence: String, column: String)]

    /// Makes the copy of `table`, which the caller has found empty, with the table's triggers, and its constraints
    /// when `constraintsFirst`.
    static func begin(_ table: String, constraintsFirst: Bool, _ connection: PostgresConnection, logger: Logger) async throws -> Self {
        let relation = "public." + table
        var laterIndexes: [(String, String)] = []
        for try await (name, definition) in try await connection.query(
            """
            SELECT index.relname::text, pg_get_indexdef(index.oid) FROM pg_index JOIN pg_class AS index ON index.oid = pg_index.indexrelid
            WHERE pg_index.indrelid = \(relation)::regclass
                AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE pg_constraint.conindid = index.oid) ORDER BY 1
            """, logger: logger
        ).decode((String, String).self) {
            laterIndexes.append((name, definition))
        }
        var constraints: [(String, String)] = []
        for try await (name, kind, definition) in try await connection.query(
            "SELECT conname::text, contype::text, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = \(relation)::regclass ORDER BY 1",
            logger: logger
        ).decode((String, String, String).self) {
            // `LIKE` copies the checks; a foreign key it leaves out, and the table is not rebuilt.
            switch kind {
            case "p", "u", "x": constraints.append((name, definition))
            case "c", "n": continue
            default: throw UnexpectedDefinition("\(name): \(definition)")
            }
        }
        var triggers: [String] = []
        for try await definition in try await connection.query(
            "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = \(relation)::regclass AND NOT tgisinternal ORDER BY tgname",
            logger: logger
        ).decode(String.self) {
            triggers.append(definition)
        }
        var ownedSequences: [(String, String)] = []
        for try await (sequence, column) in try await connection.query(
            """
            SELECT sequence.relname::text, attribute.attname::text FROM pg_depend
            JOIN pg_class AS sequence ON sequence.oid = pg_depend.objid AND sequence.relkind = 'S'
            JOIN pg_attribute AS attribute ON attribute.attrelid = pg_depend.refobjid AND attribute.attnum = pg_depend.refobjsubid
            WHERE pg_depend.refobjid = \(relation)::regclass AND pg_depend.deptype = 'a' ORDER BY 1
            """, logger: logger
        ).decode((String, String).self) {
            ownedSequences.append((sequence, column))
        }
        let rebuild = PostgresTableRebuild(
            table: table, laterIndexes: laterIndexes, constraints: constraints, constraintsFirst: constraintsFirst,
            ownedSequences: ownedSequences)
        try await rebuild.run("CREATE TABLE \(rebuild.copy) (LIKE \(table) INCLUDING ALL EXCLUDING INDEXES)", connection, logger: logger)
        if constraintsFirst { try await rebuild.addConstraints(connection, logger: logger) }
        for definition in triggers {
            try await rebuild.run(try rebuild.onCopy(definition), connection, logger: logger)
        }
        return rebuild
    }

    /// Builds the indexes that wait for the rows, under names of their own until the copy takes the table's place.
    func buildIndexes(_ connection: PostgresConnection, logger: Logger) async throws {
        if !constraintsFirst { try await addConstraints(connection, logger: logger) }
        for (name, definition) in laterIndexes {
            let prefix = definition.hasPrefix("CREATE UNIQUE INDEX ") ? "CREATE UNIQUE INDEX " : "CREATE INDEX "
            guard definition.hasPrefix(prefix + name + " ON ") else { throw UnexpectedDefinition(definition) }
            let renamed = prefix + name + "_rebuilt" + definition.dropFirst(prefix.count + name.count)
            try await run(try onCopy(renamed), connection, logger: logger)
        }
    }

    /// Drops the table, gives the copy its name and the names of its indexes and constraints, and its sequences.
    func replace(_ connection: PostgresConnection, logger: Logger) async throws {
        for (sequence, column) in ownedSequences {
            try await run("ALTER SEQUENCE \(sequence) OWNED BY \(copy).\(column)", connection, logger: logger)
        }
        try await run("DROP TABLE \(table)", connection, logger: logger)
        try await run("ALTER TABLE \(copy) RENAME TO \(table)", connection, logger: logger)
        for (name, _) in laterIndexes {
            try await run("ALTER INDEX \(name)_rebuilt RENAME TO \(name)", connection, logger: logger)
        }
        for (name, _) in constraints {
            try await run("ALTER TABLE \(table) RENAME CONSTRAINT \(name)_rebuilt TO \(name)", connection, logger: logger)
        }
    }

    /// `definition`, a statement PostgreSQL printed for the table, made for the copy: its one ` ON public.table `.
    private func onCopy(_ definition: String) throws -> String {
        let parts = definition.split(separator: " ON public.\(table) ", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw UnexpectedDefinition(definition) }
        return parts.joined(separator: " ON public.\(copy) ")
    }

    /// The copy's constraints, named for now as their indexes are: one namespace with the tables'.
    private func addConstraints(_ connection: PostgresConnection, logger: Logger) async throws {
        for (name, definition) in constraints {
            try await run("ALTER TABLE \(copy) ADD CONSTRAINT \(name)_rebuilt \(definition)", connection, logger: logger)
        }
    }

    private func run(_ sql: String, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }

    /// A definition in the catalogue that is not shaped as the migrations make them.
    struct UnexpectedDefinition: Error, CustomStringConvertible {
        let definition: String
        init(_ definition: String) { self.definition = definition }
        var description: String { "cannot rebuild a table with this definition: \(definition)" }
    }
}
