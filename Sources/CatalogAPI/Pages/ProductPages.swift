import CatalogModel
import CatalogStore
import Hummingbird

/// `/products` and `/products/{serial_code}` as pages: the list with its search box, filters, facets, sortable
/// columns and cursors; one product with every field.
struct ProductPages {
    let reads: ResourceReads

    /// The facets a list page shows beside its results, and how many values of each.
    static let facets = (fields: ProductFacetField.allCases, size: 12)
    /// The columns of the list, with the ordering each header sorts by (nil: not sortable).
    static let columns: [(title: String, ordering: String?, number: Bool)] = [
        ("Serial code", "serial_code", false), ("Name", "name", false), ("Brand", nil, false), ("Category", "category", false),
        ("Price", "price", true), ("Stock", "stock", true), ("Updated", "updated_at", false),
    ]

    func list(_ request: Request) async throws -> Response {
        if let canonical = PageURLs.canonical(request) { return PageURLs.redirect(to: canonical) }
        return try await reads.page(request) {
            let query = QueryReader(request)
            let asked = try ProductsController<BasicRequestContext>.listRequest(query)
            let page = try await FacetedProducts.read(
                reads.store, filter: asked.filter, page: asked.page, facets: asked.facets ?? (Self.facets.fields, Self.facets.size),
                rows: [ProductRow]())
            let bytes = PageLayout.render(title: "Products", section: "/products", jsonURL: PageURLs.json(request)) { html in
                Self.searchForm(query, into: &html)
                html.element("section", ["id": "results", "aria-label": "Results"]) { results in
                    results.element("p", ["class": "count"], Self.countText(page.count, search: asked.filter.search))
                    results.element("div", ["class": "layout"]) { layout in
                        Self.facetList(page.rows.facets, request: request, into: &layout)
                        layout.element("div") { main in
                            Self.table(page.rows.products, request: request, ordering: query.string("ordering"), into: &main)
                            Self.pageLinks(page, request: request, into: &main)
                        }
                    }
                }
            }
            return (bytes, page.versions)
        }
    }

    func item(_ request: Request, serialCode: String) async throws -> Response {
        try await reads.page(request) {
            let (row, versions) = try await reads.store.product(serialCode: serialCode)
            guard let row else { throw Problem.notFound("no product with serial_code '\(serialCode)'") }
            let product = row.product
            let bytes = PageLayout.render(title: product.name, section: "/products", jsonURL: PageURLs.json(request)) { html in
                html.element("p") { $0.link("/products", "All products") }
                html.element("div", ["class": "card"]) { card in
                    card.element("dl", ["class": "fields"]) { list in
                        let fields: [(String, String, link: String?)] = [
                            ("Serial code", product.serialCode, nil), ("Name", product.name, nil), ("Description", product.description, nil),
                            ("Category", product.category, "/products?category=" + PathComponent.encode(product.category)),
                            ("Brand", product.brand ?? "—", product.brand.map { "/products?brand=" + PathComponent.encode($0) }),
                            ("Price", product.price.description, nil), ("Stock", String(product.stock), nil),
                            ("Updated upstream", product.updatedAt ?? "—", nil),
                            ("Source", row.source == "api" ? "written through the API" : "the \(row.source) feed", nil),
                            ("Upstream address", product.sourceURL ?? "—", product.sourceURL),
                            ("Last change", "#\(row.changedSeq)", "/changes?since=\(max(row.changedSeq - 1, 0))"),
                        ]
                        for (name, value, link) in fields {
                            list.element("dt", name)
                            list.element("dd") { cell in
                                if let link { cell.link(link, value) } else { cell.text(value) }
                            }
                        }
                    }
                }
            }
            return (bytes, versions)
        }
    }

    static func countText(_ count: Int, search: String?) -> String {
        let products = count == 1 ? "1 product" : "\(count) products"
        guard let search else { return products }
        return "\(products) matching “\(search)”"
    }

    /// The search box and the filters, as a form that submits with GET to the same list: it works without script.
    static func searchForm(_ query: QueryReader, into html: inout HTMLWriter) {
        html.element("form", ["class": "search card", "action": "/products", "method": "get", "role": "search"]) { form in
            form.element("label", ["for": "search"], "Search by name, brand, description or category")
            form.element("div", ["class": "query"]) { row in
                row.open("input", ["id": "search", "name": "search", "type": "search", "value": query.string("search") ?? ""])
                row.element("button", ["type": "submit"], "Search")
            }
            // Folded unless one is set, so that a phone shows the results under the search box.
            let filtering = ["category", "brand", "min_price", "max_price", "in_stock", "ordering"].contains { query.string($0) != nil }
            form.element("details", ["open": filtering ? "" : nil]) { details in
                details.element("summary", "Filters and order")
                details.element("div", ["class": "filters"]) { filters in
                    for (name, label, mode) in [
                        ("category", "Category", "text"), ("brand", "Brand", "text"), ("min_price", "Lowest price", "decimal"),
                        ("max_price", "Highest price", "decimal"),
                    ] {
                        filters.element("div") { field in
                            field.element("label", ["for": name], label)
                            field.open("input", ["id": name, "name": name, "type": "text", "inputmode": mode, "value": query.string(name) ?? ""])
                        }
                    }
                    filters.element("div") { field in
                        field.element("label", ["for": "in_stock"], "In stock")
                        field.element("select", ["id": "in_stock", "name": "in_stock"]) { select in
                            for (value, label) in [("", "Any"), ("true", "In stock"), ("false", "Out of stock")] {
                                select.element("option", ["value": value, "selected": query.string("in_stock") == value ? "" : nil], label)
                            }
                        }
                    }
                    filters.element("div") { field in
                        field.element("label", ["for": "ordering"], "Order")
                        field.element("select", ["id": "ordering", "name": "ordering"]) { select in
                            let current = query.string("ordering") ?? ""
                            for (value, label) in [
                                ("", "Best match (else serial code)"), ("name", "Name"), ("price", "Price, lowest first"),
                                ("-price", "Price, highest first"),
                                ("-stock", "Most in stock"), ("-updated_at", "Recently updated"),
                            ] {
                                select.element("option", ["value": value, "selected": current == value ? "" : nil], label)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Each facet's values, each a link that narrows the list to it.
    static func facetList(_ facets: ProductFacets?, request: Request, into html: inout HTMLWriter) {
        html.element("aside", ["class": "facets card", "aria-label": "Narrow the results"]) { aside in
            for (field, values) in facets?.counts ?? [] {
                aside.element("h2", field == .category ? "Category" : "Brand")
                guard !values.isEmpty else {
                    aside.element("p", ["class": "muted"], "None")
                    continue
                }
                aside.element("ul") { list in
                    for value in values {
                        list.element("li") { item in
                            item.link(PageURLs.narrowed(request, field.rawValue, value.value), value.value)
                            item.element("span", ["class": "muted"], String(value.count))
                        }
                    }
                }
            }
        }
    }

    /// The results as a table whose headers sort it (again for the other direction).
    static func table(_ rows: [ProductRow], request: Request, ordering: String?, into html: inout HTMLWriter) {
        guard !rows.isEmpty else {
            html.element("p", ["class": "card"], "No products match. Try fewer words or filters.")
            return
        }
        html.element("div", ["class": "table"]) { wrapper in
            wrapper.element("table", ["class": "rows"]) { table in
                table.element("thead") { head in
                    head.element("tr") { row in
                        for column in columns {
                            let sorted = ordering == column.ordering ? "ascending" : ordering == column.ordering.map { "-" + $0 } ? "descending" : nil
                            row.element("th", ["scope": "col", "class": column.number ? "number" : nil, "aria-sort": sorted]) { cell in
                                guard let field = column.ordering else { return cell.text(column.title) }
                                let next = sorted == "ascending" ? "-" + field : field
                                cell.link(
                                    PageURLs.narrowed(request, "ordering", next),
                                    column.title + (sorted == "ascending" ? " ↑" : sorted == nil ? "" : " ↓"))
                            }
                        }
                    }
                }
                table.element("tbody") { body in
                    for row in rows {
                        let product = row.product
                        body.element("tr") { line in
                            let cells: [(String, String, Bool)] = [
                                ("Serial code", product.serialCode, false), ("Name", product.name, false), ("Brand", product.brand ?? "", false),
                                ("Category", product.category, false), ("Price", product.price.description, true),
                                ("Stock", String(product.stock), true),
                                ("Updated", product.updatedAt ?? "", false),
                            ]
                            for (index, (label, value, number)) in cells.enumerated() {
                                line.element("td", ["data-label": label, "class": number ? "number" : nil]) { cell in
                                    if index < 2 {
                                        cell.link("/products/" + PathComponent.encode(product.serialCode), value)
                                    } else {
                                        cell.text(value)
                                    }
                                }
                            }
                        }
                    }
                }
            }
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
}
