import CatalogModel
import CatalogStore

/// One promise both engines check alike (`check()`): a query in SQL both engines run as it is, whose every row is a
/// problem, and the line that tells it. Engine-specific checks (SQLite's integrity pass, FTS5's own check,
/// PostgreSQL's search vectors and invalid indexes) stay with each engine.
package struct StoreCheckRule: Sendable {
    package let sql: String
    package let problem: @Sendable (_ row: [ListCursor.Value]) -> String

    /// The derived counts against a recount, the history's continuity and the rejection lines an import kept.
    package static let all: [StoreCheckRule] =
        FilmLinkKind.allCases.map(filmLinkCount) + [categoryCount, inStockCount] + Change.Entity.allCases.map(lastChangeKept) + [
            historyGaps, rejectionLines, webhookPositions,
        ]

    static func filmLinkCount(_ kind: FilmLinkKind) -> StoreCheckRule {
        StoreCheckRule(
            sql: """
                SELECT episode_id, stored, actual FROM (
                    SELECT f.episode_id, f.\(kind.countColumn) AS stored,
                        (SELECT COUNT(*) FROM film_links l WHERE l.episode_id = f.episode_id AND l.kind = '\(kind.rawValue)') AS actual
                    FROM films f
                ) AS counted WHERE stored != actual ORDER BY episode_id
                """
        ) { row in "film \(row.text(0)): \(kind.countColumn) is \(row.text(1)) but it has \(row.text(2)) \(kind)" }
    }

    static let categoryCount = StoreCheckRule(
        sql: """
            SELECT name, stored, actual FROM (
                SELECT c.name, c.product_count AS stored, (SELECT COUNT(*) FROM products p WHERE p.category = c.name) AS actual FROM categories c
                UNION ALL
                SELECT p.category, NULL, COUNT(*) FROM products p WHERE p.category NOT IN (SELECT name FROM categories) GROUP BY p.category
            ) AS counted WHERE stored IS NULL OR stored != actual ORDER BY name
            """
    ) { row in
        row[1] == .null
            ? "category \(row.text(0)): missing, but \(row.text(2)) products name it"
            : "category \(row.text(0)): product_count is \(row.text(1)) but it has \(row.text(2)) products"
    }

    static let inStockCount = StoreCheckRule(
        sql: """
            SELECT name, in_stock_count, actual FROM (
                SELECT c.name, c.in_stock_count, (SELECT COUNT(*) FROM products p WHERE p.category = c.name AND p.stock > 0) AS actual
                FROM categories c
            ) AS counted WHERE in_stock_count != actual ORDER BY name
            """
    ) { row in "category \(row.text(0)): in_stock_count is \(row.text(1)) but it has \(row.text(2)) products in stock" }

    /// Every row's last change must be in the history; rows older than the retained window are exempt.
    static func lastChangeKept(_ entity: Change.Entity) -> StoreCheckRule {
        let key = "CAST(t.\(entity.keyColumn) AS TEXT)"
        return StoreCheckRule(
            sql: """
                SELECT \(key) FROM \(entity.table) t WHERE t.changed_seq >= COALESCE((SELECT MIN(seq) FROM changes), \(Int64.max))
                AND NOT EXISTS (SELECT 1 FROM changes c WHERE c.seq = t.changed_seq AND c.entity = '\(entity.rawValue)' AND c.key = \(key))
                LIMIT 100
                """
        ) { row in "\(entity.rawValue) \(row.text(0)): its last change is missing from the history" }
    }

    static let historyGaps = StoreCheckRule(
        sql: "SELECT gaps FROM (SELECT COALESCE((MAX(seq) - MIN(seq) + 1) - COUNT(*), 0) AS gaps FROM changes) AS counted WHERE gaps > 0"
    ) { row in "history: \(row.text(0)) sequence numbers missing inside the retained window" }

    /// A report keeps its first `maximumRejections` lines of however many records it rejected.
    static let rejectionLines = StoreCheckRule(
        sql: """
            SELECT id, rejected, kept FROM (
                SELECT i.id, i.rejected, (SELECT COUNT(*) FROM import_rejections r WHERE r.import_id = i.id) AS kept FROM imports i
            ) AS counted
            WHERE kept != CASE WHEN rejected < \(ImportReport.maximumRejections) THEN rejected ELSE \(ImportReport.maximumRejections) END
            ORDER BY id LIMIT 100
            """
    ) { row in "import \(row.text(0)): \(row.text(1)) rejected but \(row.text(2)) rejection lines kept" }

    /// A subscription's delivered position, and the last seq of the message under way, lie within the history's seqs, in
    /// that order, and its state is one this build knows.
    static let webhookPositions = StoreCheckRule(
        sql: """
            SELECT id, delivered_seq, message_last_seq, state FROM (
                SELECT w.*, COALESCE((SELECT MAX(seq) FROM changes), 0) AS last_seq FROM webhooks w
            ) AS placed
            WHERE delivered_seq < 0 OR delivered_seq > last_seq
                OR (message_last_seq IS NOT NULL AND (message_last_seq <= delivered_seq OR message_last_seq > last_seq))
                OR state NOT IN (\(Webhook.State.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")))
            ORDER BY id LIMIT 100
            """
    ) { row in
        "webhook \(row.text(0)): delivered seq \(row.text(1)), message under way to \(row.text(2)), state \(row.text(3)): not within the history, or a state this build does not know"
    }
}

extension [ListCursor.Value] {
    /// The value at `index` as a problem's line shows it.
    fileprivate func text(_ index: Int) -> String {
        guard indices.contains(index) else { return "none" }
        switch self[index] {
        case .integer(let number): return String(number)
        case .text(let text): return text
        case .null: return "none"
        }
    }
}
