import Logging
import PostgresNIO

/// A table filled in one transaction as a copy of itself that has its triggers and its rows so far but none of its
/// indexes, which are built once the new rows are in, its constraints' with them; the copy then takes the table's
/// place, its name and the names of its indexes, constraints and sequences, all before the transaction commits.
///
/// Why: PostgreSQL maintains an index row by row as rows come in, where building it afterwards sorts them once. For
/// a million products, the eight secondary indexes and the search index cost 49 s row by row and 16 s built after;
/// the words' key 47 s for their 25 million entries, against 14 s. Dropping the table's own indexes for the
/// transaction would do the same, but its lock would stop every reader of the table until the commit; the copy is
/// the transaction's own until it takes the table's place, just before the commit (`replace`), when the lock lasts as
/// long as renaming does.
///
/// The definitions come from the catalogue, as the migrations left them, so that the copy is the table a fresh
/// store has (tested against the schema snapshot). A table that is more than that, because an operator gave it
/// something a copy would not have (`plainTableSchema`: a view or a foreign key on it, grants, storage settings, a
/// publication, row security, rules), is filled in place instead: as before, with its indexes kept row by row.
struct PostgresTableRebuild {
    /// The table filled, in the first schema of the search path, as the store names it.
    let table: String
    /// Where the rows go: the copy, or the table itself when it is filled in place.
    let copy: String
    /// The indexes to build after the rows: each one's name, and its statement for the copy.
    private let laterIndexes: [(name: String, statement: String)]
    /// The constraints with indexes of their own: each one's name and definition.
    private let constraints: [(name: String, definition: String)]
    /// The sequences owned by the table's columns (a `serial` column's), and the column of each.
    private let ownedSequences: [(sequence: String, column: String)]

    /// Whether the rows go into the table itself, its indexes kept row by row.
    var isInPlace: Bool { copy == table }

    /// Makes the copy of `table`, with the table's triggers and rows; or fills the table in place when a copy could
    /// not be all it is. The caller holds what keeps others from writing the table until the commit (the history
    /// lock): a row they wrote meanwhile would be dropped with the table.
    static func begin(_ table: String, _ connection: PostgresConnection, logger: Logger) async throws -> Self {
        let inPlace = Self(table: table, copy: table, laterIndexes: [], constraints: [], ownedSequences: [])
        guard let schema = try await plainTableSchema(table, connection, logger: logger) else { return inPlace }
        let copy = table + "_rebuilt"
        var indexes: [(name: String, definition: String)] = []
        for try await index in try await connection.query(
            """
            SELECT index.relname::text, pg_get_indexdef(index.oid) FROM pg_index JOIN pg_class AS index ON index.oid = pg_index.indexrelid
            WHERE pg_index.indrelid = \(table)::regclass
                AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE pg_constraint.conindid = index.oid) ORDER BY 1
            """, logger: logger
        ).decode((String, String).self) {
            indexes.append(index)
        }
        var laterIndexes: [(String, String)] = []
        for (name, definition) in indexes {
            let prefix = definition.hasPrefix("CREATE UNIQUE INDEX ") ? "CREATE UNIQUE INDEX " : "CREATE INDEX "
            guard definition.hasPrefix(prefix + name + " ON "),
                let statement = onCopy(prefix + name + "_rebuilt" + definition.dropFirst(prefix.count + name.count), schema, table, copy)
            else { return inPlace }
            laterIndexes.append((name, statement))
        }
        var found: [(name: String, kind: String, definition: String)] = []
        for try await constraint in try await connection.query(
            "SELECT conname::text, contype::text, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = \(table)::regclass ORDER BY 1",
            logger: logger
        ).decode((String, String, String).self) {
            found.append(constraint)
        }
        // `LIKE` copies the checks and the columns' not-nulls; a foreign key it leaves out.
        guard found.allSatisfy({ ["p", "u", "x", "c", "n"].contains($0.kind) }) else { return inPlace }
        let constraints = found.filter { ["p", "u", "x"].contains($0.kind) }.map { ($0.name, $0.definition) }
        var triggers: [String] = []
        for try await definition in try await connection.query(
            "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = \(table)::regclass AND NOT tgisinternal ORDER BY tgname",
            logger: logger
        ).decode(String.self) {
            triggers.append(definition)
        }
        let triggerStatements = triggers.compactMap { onCopy($0, schema, table, copy) }
        guard triggerStatements.count == triggers.count else { return inPlace }
        var ownedSequences: [(String, String)] = []
        for try await (sequence, column) in try await connection.query(
            """
            SELECT sequence.relname::text, attribute.attname::text FROM pg_depend
            JOIN pg_class AS sequence ON sequence.oid = pg_depend.objid AND sequence.relkind = 'S'
            JOIN pg_attribute AS attribute ON attribute.attrelid = pg_depend.refobjid AND attribute.attnum = pg_depend.refobjsubid
            WHERE pg_depend.refobjid = \(table)::regclass AND pg_depend.deptype = 'a' ORDER BY 1
            """, logger: logger
        ).decode((String, String).self) {
            ownedSequences.append((sequence, column))
        }
        let rebuild = Self(table: table, copy: copy, laterIndexes: laterIndexes, constraints: constraints, ownedSequences: ownedSequences)
        try await rebuild.run("CREATE TABLE \(copy) (LIKE \(table) INCLUDING ALL EXCLUDING INDEXES)", connection, logger: logger)
        try await rebuild.run("INSERT INTO \(copy) SELECT * FROM \(table)", connection, logger: logger)
        for statement in triggerStatements { try await rebuild.run(statement, connection, logger: logger) }
        return rebuild
    }

    /// Builds the constraints' indexes (a key given twice fails here) and the others, under names of their own until
    /// the copy takes the table's place.
    func buildIndexes(_ connection: PostgresConnection, logger: Logger) async throws {
        try await addConstraints(connection, logger: logger)
        for (_, statement) in laterIndexes { try await run(statement, connection, logger: logger) }
    }

    /// Turns the trigger `name` of the copy (or of the table filled in place) on or off, for the run's own statements
    /// to do its work meanwhile: `ALTER TABLE` is transactional.
    func setTrigger(_ name: String, enabled: Bool, _ connection: PostgresConnection, logger: Logger) async throws {
        try await run("ALTER TABLE \(copy) \(enabled ? "ENABLE" : "DISABLE") TRIGGER \(name)", connection, logger: logger)
    }

    /// Puts each copy of `rebuilds` in its table's place: drops the table, and gives the copy its name, the names of
    /// its indexes and constraints, and its sequences. The run's last statements, just before its commit: the tables
    /// are locked from the first of them until then.
    ///
    /// The tables are locked all at once first, waiting at most `lockWait` and trying again after `lockRest`, up to
    /// `lockAttempts` times: a reader holding one of them while it waits for another would otherwise be waited for by
    /// the drop while waiting for it, until the server ended one of the two, maybe the import.
    static func replace(_ rebuilds: [Self], _ connection: PostgresConnection, logger: Logger) async throws {
        let replaced = rebuilds.filter { !$0.isInPlace }
        guard let first = replaced.first else { return }
        try await first.lock(replaced.map(\.table), connection, logger: logger)
        for rebuild in replaced {
            for (sequence, column) in rebuild.ownedSequences {
                try await rebuild.run("ALTER SEQUENCE \(sequence) OWNED BY \(rebuild.copy).\(column)", connection, logger: logger)
            }
            try await rebuild.run("DROP TABLE \(rebuild.table)", connection, logger: logger)
            try await rebuild.run("ALTER TABLE \(rebuild.copy) RENAME TO \(rebuild.table)", connection, logger: logger)
            for (name, _) in rebuild.laterIndexes {
                try await rebuild.run("ALTER INDEX \(name)_rebuilt RENAME TO \(name)", connection, logger: logger)
            }
            for (name, _) in rebuild.constraints {
                try await rebuild.run("ALTER TABLE \(rebuild.table) RENAME CONSTRAINT \(name)_rebuilt TO \(name)", connection, logger: logger)
            }
        }
    }

    static let lockWait = "100ms"
    static let lockRest: Duration = .milliseconds(50)
    static let lockAttempts = 100

    /// Locks `tables` for the run's transaction, from a savepoint each try: a lock not granted within `lockWait` fails
    /// the statement, and rolling back to the savepoint lets go of the locks it had taken.
    private func lock(_ tables: [String], _ connection: PostgresConnection, logger: Logger) async throws {
        for attempt in 1...Self.lockAttempts {
            try await run("SAVEPOINT table_rebuild", connection, logger: logger)
            try await run("SET LOCAL lock_timeout = '\(Self.lockWait)'", connection, logger: logger)
            do {
                try await run("LOCK TABLE \(tables.joined(separator: ", ")) IN ACCESS EXCLUSIVE MODE", connection, logger: logger)
                try await run("SET LOCAL lock_timeout TO DEFAULT", connection, logger: logger)
                try await run("RELEASE SAVEPOINT table_rebuild", connection, logger: logger)
                return
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "55P03" && attempt < Self.lockAttempts {
                try await run("ROLLBACK TO SAVEPOINT table_rebuild", connection, logger: logger)
                try await Task.sleep(for: Self.lockRest)
            }
        }
    }

    /// The schema of `table`, as PostgreSQL prints it in definitions, when the table is no more than its columns,
    /// constraints, indexes, triggers and sequences, which a copy has too: in the first schema of the search path
    /// (where the copy is made), owned by the store's role, with nothing but its own defaults and triggers (a trigger's
    /// condition names columns) depending on it, nothing on its row type, no grants, storage settings, statistics
    /// targets, tablespace, replica identity, row security, rules or disabled triggers; no publication in the database (one for all tables would publish the copy under its own name), and
    /// no default grants that the copy would get. Nil otherwise.
    private static func plainTableSchema(_ table: String, _ connection: PostgresConnection, logger: Logger) async throws -> String? {
        for try await (plain, schema) in try await connection.query(
            """
            WITH target AS (SELECT oid, reltype FROM pg_class WHERE oid = to_regclass(\(table)))
            SELECT EXISTS (
                    SELECT 1 FROM pg_class, target WHERE pg_class.oid = target.oid AND relnamespace = current_schema()::regnamespace
                    AND relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user) AND relacl IS NULL AND reloptions IS NULL
                    AND NOT relrowsecurity AND relpersistence = 'p' AND reltablespace = 0 AND relreplident = 'd')
                AND NOT EXISTS (
                    SELECT 1 FROM pg_depend, target WHERE deptype = 'n' AND ((refclassid = 'pg_type'::regclass AND refobjid = target.reltype)
                        OR (refclassid = 'pg_class'::regclass AND refobjid = target.oid
                            AND NOT (classid = 'pg_attrdef'::regclass AND objid IN (SELECT oid FROM pg_attrdef WHERE adrelid = target.oid))
                            AND NOT (classid = 'pg_trigger'::regclass AND objid IN (SELECT oid FROM pg_trigger WHERE tgrelid = target.oid)))))
                AND NOT EXISTS (
                    SELECT 1 FROM pg_attribute, target WHERE attrelid = target.oid AND attnum > 0
                    AND (attacl IS NOT NULL OR attoptions IS NOT NULL OR COALESCE(attstattarget, -1) <> -1))
                AND NOT EXISTS (SELECT 1 FROM pg_trigger, target WHERE tgrelid = target.oid AND NOT tgisinternal AND tgenabled <> 'O')
                AND NOT EXISTS (SELECT 1 FROM pg_policy, target WHERE polrelid = target.oid)
                AND NOT EXISTS (SELECT 1 FROM pg_rewrite, target WHERE ev_class = target.oid)
                AND NOT EXISTS (SELECT 1 FROM pg_publication)
                AND NOT EXISTS (SELECT 1 FROM pg_default_acl WHERE defaclobjtype = 'r'),
                quote_ident(current_schema())
            """, logger: logger
        ).decode((Bool, String).self) {
            return plain ? schema : nil
        }
        return nil
    }

    /// `definition`, a statement PostgreSQL printed for the table, made for the copy: its one ` ON schema.table `;
    /// nil when it has not exactly one.
    private static func onCopy(_ definition: String, _ schema: String, _ table: String, _ copy: String) -> String? {
        let parts = definition.split(separator: " ON \(schema).\(table) ", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        return parts.joined(separator: " ON \(schema).\(copy) ")
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
