import CatalogModel
import CatalogStore
import Hummingbird

/// `/changes` as a page: the newest changes first, as a list that works without script; with it, the page follows
/// the Server-Sent Events feed and each new change appears at the top as it is made.
struct ChangesPage {
    let store: any CatalogStore

    /// How many of the newest changes the page lists.
    static let newest = 50

    func render(_ request: Request) async throws -> Response {
        let lastSeq = try await store.currentVersions().lastSeq
        let changes: [Change]
        do {
            changes = try await store.changes(since: max(0, lastSeq - Int64(Self.newest)), limit: Self.newest).changes.reversed()
        } catch is HistoryGone {
            changes = []
        }
        let bytes = PageLayout.render(title: "Changes", section: "/changes", jsonURL: PageURLs.json(request)) { html in
            html.element("p", ["class": "muted"], "Every write to the catalogue, newest first; new ones appear at the top as they are made.")
            html.element("div", ["class": "card"]) { card in
                card.element(
                    "ol",
                    [
                        "id": "live-changes", "class": "changes", "reversed": "", "data-stream": "/changes?feed=eventsource",
                        "data-since": String(lastSeq),
                    ]
                ) {
                    list in
                    for change in changes { Self.item(change, into: &list) }
                }
                if changes.isEmpty { card.element("p", ["class": "muted"], "No change recorded yet.") }
            }
        }
        return PageResponse.uncached(bytes)
    }

    /// One change: `#12 upsert product SKU-1 by api at …`, the row linked while it exists. The page's script
    /// writes the same shape for the changes it receives.
    static func item(_ change: Change, into html: inout HTMLWriter) {
        html.element("li", ["value": String(change.seq)]) { item in
            item.text("#\(change.seq) \(change.op.rawValue) \(change.entity.rawValue) ")
            let path = change.entity == .product ? "/products/" + PathComponent.encode(change.key) : "/films/" + change.key
            if change.op == .delete { item.text(change.key) } else { item.link(path, change.key) }
            item.text(" by \(change.author) at \(change.at)")
        }
    }
}
