import CatalogModel
import CatalogStore
import Hummingbird

/// `/` as a page: what the catalogue holds, each feed's last runs and how fresh it is, and where to go next. It
/// reads several families of the store, so it is made afresh for each request rather than cached.
struct HomePage {
    let store: any CatalogStore
    let freshness: ImportFreshness?
    /// Whether the request may see the webhooks: their link shows only to a token with `webhooks:admin`.
    let authority: TokenAuthority

    /// How many recent runs the page lists.
    static let recentRuns = 6

    func render(_ request: Request) async throws -> Response {
        let statistics = try await store.statistics()
        let runs = try await store.importReports(page: PageRequest(pageSize: Self.recentRuns)).rows
        let lastSuccess = try await store.lastSuccessfulImports()
        let webhooks = await authority.permits(request, .webhooksAdmin) ? try await store.webhooks() : nil
        let bytes = PageLayout.render(title: "The catalogue", section: "/", jsonURL: PageURLs.json(request)) { html in
            PageTable.fields(
                [
                    ("Products", .init(PageTable.counted(statistics.products, "product", "products"), link: "/products")),
                    ("Categories", .init(PageTable.counted(statistics.categories, "category", "categories"), link: "/categories")),
                    ("Films", .init(PageTable.counted(statistics.films, "film", "films"), link: "/films")),
                    ("Changes recorded", .init(String(statistics.changes), link: "/changes")),
                    (
                        "Freshness",
                        .init(
                            freshness.map { $0.staleness(lastSuccess: lastSuccess) ?? "every feed imported within --stale-after" }
                                ?? "not watched (--stale-after off)")
                    ),
                ]
                    + FeedSource.allCases.map { source in
                        ("Last good \(source.rawValue) import", .init(lastSuccess[source] ?? "none yet"))
                    }
                    + (webhooks.map { [("Webhooks", .init(PageTable.counted($0.count, "subscription", "subscriptions"), link: "/webhooks"))] } ?? []),
                into: &html)
            html.element("h2", "Recent imports")
            PageTable.write(
                ImportPages.listPage.columns, rows: runs.map(ImportPages.cells), request: request, empty: "No import has run yet.", into: &html)
            html.element("p") { $0.link("/imports", "Every run") }
        }
        return PageResponse.uncached(bytes)
    }
}
