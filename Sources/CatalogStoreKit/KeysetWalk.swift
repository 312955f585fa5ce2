import CatalogStore

/// One page of a keyset walk, as both engines read it: the query runs in the page's order when walking forward
/// and against it when walking back from a `previous` cursor, asks for one row beyond the page, and probes for
/// rows on the cursor's other side. This type says which comparisons and direction the query takes and which
/// cursors the rows read give; each engine writes the SQL and reads the rows.
package struct KeysetWalk: Sendable {
    /// A row's place in the walk: its sort value and key.
    package typealias Position = (sortValue: ListCursor.Value, key: ListCursor.Value)

    package let resolved: ListOrdering.Resolved
    /// Whether the query reads in the page's order (from no cursor or a `next` one).
    package let forward: Bool
    /// Whether the query reads in ascending order.
    package let ascendingInQuery: Bool

    package init(_ resolved: ListOrdering.Resolved) {
        self.resolved = resolved
        forward = resolved.cursor?.direction != .previous
        ascendingInQuery = forward != resolved.descending
    }

    /// `ASC` or `DESC`, for the query's ORDER BY.
    package var direction: String { ascendingInQuery ? "ASC" : "DESC" }
    /// The comparison of a row with the cursor that puts it on the page's side.
    package var pageSide: String { ascendingInQuery ? ">" : "<" }
    /// The comparison of a row with the cursor that puts it at or behind the cursor.
    package var cursorSide: String { ascendingInQuery ? "<=" : ">=" }

    /// The cursors of the pages on either side, from the page's rows as read (in the query's order): its first row,
    /// its last when the page is full, whether a row came beyond the page and whether the probe found rows behind
    /// the cursor. Read backwards, the page's first row was read last.
    package func cursors(
        firstRead: Position?, lastRead: Position?, hasMoreInQueryDirection: Bool, hasRowsBehindCursor: Bool
    ) -> (next: String?, previous: String?) {
        func encoded(_ edge: Position?, _ direction: ListCursor.Direction) -> String? {
            guard let edge else { return nil }
            return ListCursor(ordering: resolved.ordering, direction: direction, sortValue: edge.sortValue, key: edge.key).encoded()
        }
        let hasNext = forward ? hasMoreInQueryDirection : hasRowsBehindCursor
        let hasPrevious = forward ? hasRowsBehindCursor : hasMoreInQueryDirection
        return (
            hasNext ? encoded(forward ? lastRead : firstRead, .next) : nil,
            hasPrevious ? encoded(forward ? firstRead : lastRead, .previous) : nil
        )
    }
}
