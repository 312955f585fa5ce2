import CatalogModel
import CatalogStore
import Hummingbird

/// `/products` and `/products/{serial_code}` as pages: the list with its search box, filters, facets, sortable
/// columns and cursors; one product with every field.
struct ProductPages {
    let reads: ResourceReads
    /// Whether mistyped words of a search that matches nothing are corrected (`ProductsController.correctsTypos`).
    var correctsTypos = true

    /// The facets a list page shows beside its results, and how many values of each.
    static let facets = (fields: ProductFacetField.allCases, size: 12)
    /// The columns of the list; those with an ordering sort it.
    static let columns: [PageTable.Column] = [
        .init(title: "Serial code", ordering: "serial_code"), .init(title: "Name", ordering: "name"), .init(title: "Brand"),
        .init(title: "Category", ordering: "category"), .init(title: "Price", ordering: "price", isNumber: true),
        .init(title: "Stock", ordering: "stock", isNumber: true), .init(title: "Updated", ordering: "updated_at"),
    ]

    func list(_ request: Request) async throws -> Response {
        if let canonical = PageURLs.canonical(request) {
            // Only to a list that exists: every parameter is read, and the rows its cursor names fetched, as the clean
            // URL and the JSON read them, so that what they would refuse is refused here, with their status.
            let asked = try ProductsController<BasicRequestContext>.listRequest(PageURLs.query(of: canonical), correctsTypos: correctsTypos)
            _ = try await reads.store.products(asked.filter, page: asked.page, into: [ProductRow]())
            return PageResponse.redirect(to: canonical)
        }
        return try await reads.page(request) {
            let query = QueryReader(request)
            let asked = try ProductsController<BasicRequestContext>.listRequest(query, correctsTypos: correctsTypos)
            let page = try await FacetedProducts.read(
                reads.store, filter: asked.filter, page: asked.page, facets: asked.facets ?? (Self.facets.fields, Self.facets.size),
                rows: [ProductRow]())
            reads.searchPlans?.record(page.searchRead)
            let bytes = PageLayout.render(title: "Products", section: "/products", jsonURL: Self.jsonURL(request)) { html in
                Self.searchForm(query, into: &html)
                html.element("section", ["id": "results", "aria-label": "Results"]) { results in
                    if !page.corrections.isEmpty { Self.correctionNote(page.corrections, request: request, into: &results) }
                    results.element("p", ["class": "count"], Self.countText(page.count, search: asked.filter.search))
                    results.element("div", ["class": "layout"]) { layout in
                        // The rows first, so that a phone shows them on its first screen; a wider one puts the
                        // facets to their left (catalogd.css).
                        layout.element("div", ["class": "listing"]) { main in
                            PageTable.write(
                                Self.columns, rows: page.rows.products.map(Self.cells), request: request,
                                empty: "No products match. Try fewer words or filters.", into: &main)
                            PageTable.pageLinks(page, request: request, into: &main)
                            PageTable.exportLinks(request: request, into: &main)
                        }
                        Self.facetList(page.rows.facets, request: request, into: &layout)
                    }
                }
            }
            return (bytes, page.versions)
        }
    }

    func item(_ request: Request, serialCode: String) async throws -> Response {
        try await reads.itemPage(
            request, notFound: "no product with serial_code '\(serialCode)'",
            fetch: { try await RowHistory.read(reads.store, .product, key: serialCode) { try await reads.store.product(serialCode: serialCode) } },
            section: "/products", back: "All products", title: \.row.product.name
        ) { item, html in
            let (row, product) = (item.row, item.row.product)
            PageTable.fields(
                [
                    ("Serial code", .init(product.serialCode)), ("Name", .init(product.name)), ("Description", .init(product.description)),
                    ("Category", .init(product.category, link: "/products?category=" + PathComponent.encode(product.category))),
                    ("Brand", .init(product.brand ?? "—", link: product.brand.map { "/products?brand=" + PathComponent.encode($0) })),
                    ("Price", .init(product.price.description)), ("Stock", .init(String(product.stock))),
                    ("Updated upstream", .init(product.updatedAt ?? "—")),
                    ("Source", .init(row.source == "api" ? "written through the API" : "the \(row.source) feed")),
                    ("Upstream address", .init(product.sourceURL ?? "—", link: PageURLs.external(product.sourceURL))),
                    ("Last change", .init("#\(row.changedSeq)", link: "/changes?since=\(max(row.changedSeq - 1, 0))")),
                ], into: &html)
            item.write(into: &html)
        }
    }

    /// The same view as JSON: the rows and, unless the request names its own, the facets the page shows beside them.
    static func jsonURL(_ request: Request) -> String {
        let json = PageURLs.json(request)
        guard QueryReader(request).string("facets") == nil else { return json }
        return json + "&facets=" + facets.fields.map(\.rawValue).joined(separator: ",") + "&facet_size=\(facets.size)"
    }

    /// "Showing results for lamp", each corrected word as searched, and a link that searches exactly what was typed.
    static func correctionNote(_ corrections: [SearchCorrection], request: Request, into html: inout HTMLWriter) {
        html.element("p", ["class": "corrections"]) { note in
            note.text("Showing results for ")
            for (index, correction) in corrections.enumerated() {
                if index > 0 { note.text(", ") }
                note.element("strong", correction.searched.joined(separator: " or "))
                note.text(" (typed “\(correction.typed)”)")
            }
            note.text(". ")
            note.link(PageURLs.narrowed(request, "typos", "0"), "Search exactly what was typed")
        }
    }

    static func countText(_ count: Int, search: String?) -> String {
        let products = PageTable.counted(count, "product", "products")
        guard let search else { return products }
        return "\(products) matching “\(search)”"
    }

    /// The search box and the filters, as a form that submits with GET to the same list: it works without script.
    static func searchForm(_ query: QueryReader, into html: inout HTMLWriter) {
        PageTable.searchForm(action: "/products", label: "Search by name, brand, description or category", query: query, into: &html) { form in
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

    /// Each facet's values, each a link that narrows the list to it, folded under "Filters": a phone shows them
    /// when asked, below the results; a wider screen shows them unfolded (catalogd.css).
    static func facetList(_ facets: ProductFacets?, request: Request, into html: inout HTMLWriter) {
        html.element("aside", ["class": "facets card", "aria-label": "Narrow the results"]) { aside in
            aside.element("details") { details in
                details.element("summary", "Filters")
                for (field, values) in facets?.counts ?? [] {
                    details.element("h2", field == .category ? "Category" : "Brand")
                    guard !values.isEmpty else {
                        details.element("p", ["class": "muted"], "None")
                        continue
                    }
                    details.element("ul") { list in
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
    }

    /// A product's cells, in the order of `columns`.
    static func cells(_ row: ProductRow) -> [PageTable.Cell] {
        let product = row.product
        let link = "/products/" + PathComponent.encode(product.serialCode)
        return [
            // The name links to the product; the serial code beside it is text, so that a page of rows carries one link each.
            .init(product.serialCode), .init(product.name, link: link), .init(product.brand ?? ""), .init(product.category),
            .init(product.price.description), .init(String(product.stock)), .init(product.updatedAt ?? ""),
        ]
    }
}
