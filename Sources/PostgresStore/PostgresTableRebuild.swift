import Logging
import PostgresNIO

/// An empty table filled in one transaction as a copy of itself that has its triggers and, when asked, its constraints,
/// but none of its other indexes, which are built once its rows are in; the copy then takes the table's place, its
/// name and the names of its indexes, constraints and sequences, all before the transaction commits.
///
/// Why: PostgreSQL maintains an index row by row as rows come in, where building it afterwards sorts them once. For
/// a million products, the eight secondary indexes and the search index cost 49 s row by row and 16 s built after;
/// the words' key 47 s for their 25 million entries, against 14 s. Dropping the table's own indexes for the
/// transaction would do the same, but its lock would stop every reader of the table until the commit; the copy is
/// the transaction's own until it takes the table's place, when the lock lasts as long as renaming does.
///
/// The definitions come from the catalogue, as the migrations left them, so that the copy is the table a fresh
/// store has (tested against the schema snapshot). A table that is more than that, because an operator gave it
/// something a copy would not have (a view or a foreign key on it, grants, storage settings, a publication, row
/// security, rules), is filled in place instead: as before, with its indexes kept row by row.
struct PostgresTableRebuild {
    /// The table filled, in the `public` schema.
    let table: String
    /// Where the rows go: the copy, or the table itself when it is filled in place.
    let copy: String
    /// The indexes to build after the rows: each one's name, and its statement for the copy.
    private let laterIndexes: [(name: String, statement: String)]
    /// The constraints with indexes of their own: each one's name and definition.
    private let constraints: [(name: String, definition: String)]
    /// Whether the constraints are made on the copy before its rows, so that a key given twice fails as it comes,
    /// rather than with the indexes after them.
    private let constraintsFirst: Bool
    /// The sequences owned by the table's columns (a `serial` column's), and the column of each.
    private let ownedSequences: [(sequence: String, column: String)]

    /// Whether the rows go into the table itself, its indexes kept row by row.
    var isInPlace: Bool { copy == table }

    /// Makes the copy of `table`, which the caller has found empty, with the table's triggers, and its constraints
    /// when `constraintsFirst`; or fills the table in place when a copy could not be all it is.
    static func begin(_ table: String, constraintsFirst: Bool, _ connection: PostgresConnection, logger: Logger) async throws -> Self {
        let relation = "public." + table
        let inPlace = Self(table: table, copy: table, laterIndexes: [], constraints: [], constraintsFirst: true, ownedSequences: [])
        guard try await isPlain(relation, connection, logger: logger) else { return inPlace }
        let copy = table + "_rebuilt"
        var indexes: [(name: String, definition: String)] = []
        for try await index in try await connection.query(
            """
            SELECT index.relname::text, pg_get_indexdef(index.oid) FROM pg_index JOIN pg_class AS index ON index.oid = pg_index.indexrelid
            WHERE pg_index.indrelid = \(relation)::regclass
                AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE pg_constraint.conindid = index.oid) ORDER BY 1
            """, logger: logger
        ).decode((String, String).self) {
            indexes.append(index)
        }
        var laterIndexes: [(String, String)] = []
        for (name, definition) in indexes {
            let prefix = definition.hasPrefix("CREATE UNIQUE INDEX ") ? "CREATE UNIQUE INDEX " : "CREATE INDEX "
            guard definition.hasPrefix(prefix + name + " ON "),
                let statement = onCopy(prefix + name + "_rebuilt" + definition.dropFirst(prefix.count + name.count), table, copy)
            else { return inPlace }
            laterIndexes.append((name, statement))
        }
        var found: [(name: String, kind: String, definition: String)] = []
        for try await constraint in try await connection.query(
            "SELECT conname::text, contype::text, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = \(relation)::regclass ORDER BY 1",
            logger: logger
        ).decode((String, String, String).self) {
            found.append(constraint)
        }
        // `LIKE` copies the checks and the columns' not-nulls; a foreign key it leaves out.
        guard found.allSatisfy({ ["p", "u", "x", "c", "n"].contains($0.kind) }) else { return inPlace }
        let constraints = found.filter { ["p", "u", "x"].contains($0.kind) }.map { ($0.name, $0.definition) }
        var triggers: [String] = []
        for try await definition in try await connection.query(
            "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = \(relation)::regclass AND NOT tgisinternal ORDER BY tgname",
            logger: logger
        ).decode(String.self) {
            triggers.append(definition)
        }
        let triggerStatements = triggers.compactMap { onCopy($0, table, copy) }
        guard triggerStatements.count == triggers.count else { return inPlace }
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
        let rebuild = Self(
            table: table, copy: copy, laterIndexes: laterIndexes, constraints: constraints, constraintsFirst: constraintsFirst,
            ownedSequences: ownedSequences)
        try await rebuild.run("CREATE TABLE \(copy) (LIKE \(table) INCLUDING ALL EXCLUDING INDEXES)", connection, logger: logger)
        if constraintsFirst { try await rebuild.addConstraints(connection, logger: logger) }
        for statement in triggerStatements { try await rebuild.run(statement, connection, logger: logger) }
        return rebuild
    }

    /// Builds the indexes that wait for the rows, under names of their own until the copy takes the table's place.
    func buildIndexes(_ connection: PostgresConnection, logger: Logger) async throws {
        if !constraintsFirst { try await addConstraints(connection, logger: logger) }
        for (_, statement) in laterIndexes { try await run(statement, connection, logger: logger) }
    }

    /// Drops the table, gives the copy its name and the names of its indexes and constraints, and its sequences.
    func replace(_ connection: PostgresConnection, logger: Logger) async throws {
        guard !isInPlace else { return }
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

    /// Whether the table is no more than its columns, constraints, indexes, triggers and sequences, which a copy has
    /// too: nothing else depends on it, and it has no grants, storage settings, publication, row security or rules.
    /// (Its generated column's expression depends on the table itself.)
    private static func isPlain(_ relation: String, _ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        for try await plain in try await connection.query(
            """
            SELECT NOT EXISTS (
                    SELECT 1 FROM pg_depend WHERE refclassid = 'pg_class'::regclass AND refobjid = \(relation)::regclass AND deptype = 'n'
                    AND NOT (classid = 'pg_attrdef'::regclass AND objid IN (SELECT oid FROM pg_attrdef WHERE adrelid = \(relation)::regclass)))
                AND NOT EXISTS (SELECT 1 FROM pg_publication_rel WHERE prrelid = \(relation)::regclass)
                AND NOT EXISTS (SELECT 1 FROM pg_policy WHERE polrelid = \(relation)::regclass)
                AND NOT EXISTS (SELECT 1 FROM pg_rewrite WHERE ev_class = \(relation)::regclass)
                AND NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = \(relation)::regclass AND attacl IS NOT NULL)
                AND (SELECT relacl IS NULL AND reloptions IS NULL AND NOT relrowsecurity FROM pg_class WHERE oid = \(relation)::regclass)
            """, logger: logger
        ).decode(Bool.self) {
            return plain
        }
        return false
    }

    /// `definition`, a statement PostgreSQL printed for the table, made for the copy: its one ` ON public.table `;
    /// nil when it has not exactly one.
    private static func onCopy(_ definition: String, _ table: String, _ copy: String) -> String? {
        let parts = definition.split(separator: " ON public.\(table) ", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        return parts.joined(separator: " ON public.\(copy) ")
    }

    /// The copy's constraints, named for now as their indexes are: one namespace with the tables'.
    private func addConstraints(_ connection: PostgresConnection, logger: Logger) async throws {
        guard !isInPlace else { return }
        for (name, definition) in constraints {
            try await run("ALTER TABLE \(copy) ADD CONSTRAINT \(name)_rebuilt \(definition)", connection, logger: logger)
        }
    }

    private func run(_ sql: String, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }
}
