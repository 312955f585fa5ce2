import CatalogStore
import Hummingbird

/// What the list page of a resource shows: a search form when it has one, the count, the rows as a table whose
/// headers sort it, and the links to the pages on either side. The products page adds its facets beside the table.
struct ListPage<Row: Sendable>: Sendable {
    let title: String
    /// The path of the section the navigation marks.
    let section: String
    let noun: (singular: String, plural: String)
    let columns: [PageTable.Column]
    let cells: @Sendable (Row) -> [PageTable.Cell]
    let empty: String
    /// The label of the search box, for a resource that can be searched.
    var searchLabel: String? = nil
    /// Whether the rows show something still under way, so that the page loads itself again.
    var isUnderWay: @Sendable ([Row]) -> Bool = { _ in false }

    /// How many seconds a page showing something under way waits before it loads itself again.
    static var refreshSeconds: Int { 2 }

    func render(_ request: Request, _ page: Page<[Row]>, exported: Bool) -> [UInt8] {
        PageLayout.render(
            title: title, section: section, jsonURL: PageURLs.json(request), refreshSeconds: isUnderWay(page.rows) ? Self.refreshSeconds : nil
        ) { html in
            if let searchLabel { PageTable.searchForm(action: section, label: searchLabel, query: QueryReader(request), into: &html) }
            html.element("section", ["id": "results", "aria-label": "Results"]) { results in
                results.element("p", ["class": "count"], PageTable.counted(page.count, noun.singular, noun.plural))
                PageTable.write(columns, rows: page.rows.map(cells), request: request, empty: empty, into: &results)
                PageTable.pageLinks(page, request: request, into: &results)
                if exported { PageTable.exportLinks(request: request, into: &results) }
            }
        }
    }
}

extension ResourceReads {
    /// A list as a page: from the canonical form of its URL (`PageURLs.canonical`), cached like the JSON.
    func list<Row>(_ request: Request, page listPage: ListPage<Row>, fetch: (QueryReader) async throws -> Page<[Row]>) async throws -> Response {
        if let canonical = PageURLs.canonical(request) {
            // Only to a list that exists: a bad value is a 400 here, as it would be at the clean URL.
            _ = try await fetch(PageURLs.query(of: canonical))
            return PageResponse.redirect(to: canonical)
        }
        return try await page(request) {
            let page = try await fetch(QueryReader(request))
            searchPlans?.record(page.searchRead)
            return (listPage.render(request, page, exported: exported), page.versions)
        }
    }
}

extension ResourceReads {
    /// One row as a page titled `title`, under a link back to its list (`section`, named `back`), or a 404 with
    /// `notFound`; `content` writes the rest. `isUnderWay` makes the page load itself again (a running import).
    func itemPage<Row: Sendable>(
        _ request: Request, notFound: String, fetch: () async throws -> (Row?, StoreVersions), section: String, back: String,
        title: (Row) -> String, isUnderWay: (Row) -> Bool = { _ in false }, content: (Row, inout HTMLWriter) -> Void
    ) async throws -> Response {
        try await page(request) {
            let (row, versions) = try await fetch()
            guard let row else { throw Problem.notFound(notFound) }
            let refresh = isUnderWay(row) ? ListPage<Row>.refreshSeconds : nil
            let bytes = PageLayout.render(title: title(row), section: section, jsonURL: PageURLs.json(request), refreshSeconds: refresh) { html in
                html.element("p") { $0.link(section, back) }
                content(row, &html)
            }
            return (bytes, versions)
        }
    }
}
