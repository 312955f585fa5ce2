import CatalogStore
import Hummingbird

/// `/categories` and `/categories/{name}` as pages: each category with its derived product count.
struct CategoryPages {
    let reads: ResourceReads

    static let listPage = ListPage<CategoryRow>(
        title: "Categories", section: "/categories", noun: ("category", "categories"),
        columns: [.init(title: "Category", ordering: "name"), .init(title: "Products", ordering: "product_count", isNumber: true)],
        cells: { [.init($0.name, link: "/categories/" + PathComponent.encode($0.name)), .init(String($0.productCount))] },
        empty: "No categories match.", searchLabel: "Search by name")

    func list(_ request: Request) async throws -> Response {
        try await reads.list(request, page: Self.listPage) { query in
            try await reads.store.categories(CategoryFilter(search: try query.search()), page: try query.pageRequest())
        }
    }

    func item(_ request: Request, name: String) async throws -> Response {
        try await reads.itemPage(
            request, notFound: "no category named '\(name)'", fetch: { try await reads.store.category(name: name) },
            section: "/categories", back: "All categories", title: \.name
        ) { row, html in
            PageTable.fields(
                [
                    ("Name", .init(row.name)),
                    (
                        "Products",
                        .init(
                            PageTable.counted(row.productCount, "product", "products"),
                            link: "/products?category=" + PathComponent.encode(row.name))
                    ),
                ], into: &html)
        }
    }
}
