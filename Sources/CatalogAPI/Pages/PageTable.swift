import CatalogStore
import Hummingbird

/// The parts every list and item page is made of: a table of rows whose headers sort it, the links to the pages on
/// either side, and a list of an item's fields.
enum PageTable {
    struct Column {
        let title: String
        /// The `ordering` its header sorts by; nil when it sorts by none.
        var ordering: String? = nil
        var isNumber = false
    }

    /// One cell: its text, and where it links to, if anywhere.
    struct Cell {
        let text: String
        var link: String? = nil

        init(_ text: String, link: String? = nil) {
            self.text = text
            self.link = link
        }
    }

    /// The rows as a table; on a phone each row reads as a card, its cells labelled with their column's title.
    static func write(
        _ columns: [Column], rows: [[Cell]], request: Request, empty: String, into html: inout HTMLWriter
    ) {
        guard !rows.isEmpty else {
            html.element("p", ["class": "card"], empty)
            return
        }
        let ordering = QueryReader(request).string("ordering")
        html.element("div", ["class": "table"]) { wrapper in
            wrapper.element("table", ["class": "rows"]) { table in
                table.element("thead") { head in
                    head.element("tr") { row in
                        for column in columns { header(column, ordering: ordering, request: request, into: &row) }
                    }
                }
                table.element("tbody") { body in
                    for cells in rows {
                        body.element("tr") { line in
                            for (column, cell) in zip(columns, cells) {
                                line.element("td", ["data-label": column.title, "class": column.isNumber ? "number" : nil]) { td in
                                    if let link = cell.link { td.link(link, cell.text) } else { td.text(cell.text) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A column's header: a link that sorts by it, the other way round when it already does.
    private static func header(_ column: Column, ordering: String?, request: Request, into html: inout HTMLWriter) {
        let sorted = column.ordering.flatMap { field in ordering == field ? "ascending" : ordering == "-" + field ? "descending" : nil }
        html.element("th", ["scope": "col", "class": column.isNumber ? "number" : nil, "aria-sort": sorted]) { cell in
            guard let field = column.ordering else { return cell.text(column.title) }
            let arrow = sorted == "ascending" ? " ↑" : sorted == "descending" ? " ↓" : ""
            cell.link(PageURLs.narrowed(request, "ordering", sorted == "ascending" ? "-" + field : field), column.title + arrow)
        }
    }

    /// Links to the pages on either side, following the list's cursors.
    static func pageLinks<Rows>(_ page: Page<Rows>, request: Request, into html: inout HTMLWriter) {
        html.element("nav", ["class": "pages", "aria-label": "Pages"]) { nav in
            if let previous = page.previousCursor {
                nav.link(PageURLs.list(request, cursor: previous), "← Previous page", rel: "prev")
            } else {
                nav.element("span") { _ in }
            }
            if let next = page.nextCursor { nav.link(PageURLs.list(request, cursor: next), "Next page →", rel: "next") }
        }
    }

    /// Links that download the whole list in each export format (`Exports`).
    static func exportLinks(request: Request, into html: inout HTMLWriter) {
        html.element("p", ["class": "export"]) { paragraph in
            paragraph.text("Download the whole list: ")
            for (number, format) in ExportFormat.allCases.enumerated() {
                if number > 0 { paragraph.text(" · ") }
                paragraph.link(RequestURLs.exportURL(base: "", request: request, format: format), format.rawValue.uppercased())
            }
        }
    }

    /// An item's fields, each a name and a value that may link somewhere.
    static func fields(_ fields: [(name: String, value: Cell)], into html: inout HTMLWriter) {
        html.element("div", ["class": "card"]) { card in
            card.element("dl", ["class": "fields"]) { list in
                for (name, value) in fields {
                    list.element("dt", name)
                    list.element("dd") { cell in
                        if let link = value.link { cell.link(link, value.text) } else { cell.text(value.text) }
                    }
                }
            }
        }
    }

    /// A search box that submits with GET to `action`; `more` writes further fields inside the form.
    static func searchForm(
        action: String, label: String, query: QueryReader, into html: inout HTMLWriter, more: (inout HTMLWriter) -> Void = { _ in }
    ) {
        html.element("form", ["class": "search card", "action": action, "method": "get", "role": "search"]) { form in
            form.element("label", ["for": "search"], label)
            form.element("div", ["class": "query"]) { row in
                row.open("input", ["id": "search", "name": "search", "type": "search", "value": query.string("search") ?? ""])
                row.element("button", ["type": "submit"], "Search")
            }
            more(&form)
        }
    }

    /// "1 product", "2 products".
    static func counted(_ count: Int, _ singular: String, _ plural: String) -> String {
        count == 1 ? "1 \(singular)" : "\(count) \(plural)"
    }
}
