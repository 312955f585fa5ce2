import CatalogModel
import CatalogStore
import Hummingbird

/// `/imports` and `/imports/{id}` as pages: the runs with their counts, and one run with its rejections. A page
/// showing a running import loads itself again every few seconds until it ends (`ListPage.isUnderWay`).
struct ImportPages {
    let reads: ResourceReads

    static let listPage = ListPage<ImportReport>(
        title: "Imports", section: "/imports", noun: ("run", "runs"),
        columns: [
            .init(title: "Run", ordering: "id", isNumber: true), .init(title: "Source"), .init(title: "Status"), .init(title: "Started"),
            .init(title: "Finished"),
        ] + ["Fetched", "New", "Updated", "Unchanged", "Deleted", "Rejected"].map { .init(title: $0, isNumber: true) },
        cells: cells, empty: "No import has run yet.", isUnderWay: { $0.contains { $0.status == .running } })

    func list(_ request: Request) async throws -> Response {
        try await reads.list(request, page: Self.listPage) { query in try await reads.store.importReports(page: try query.pageRequest()) }
    }

    func item(_ request: Request, id: Int64) async throws -> Response {
        try await reads.itemPage(
            request, notFound: "no import with id \(id)", fetch: { try await reads.store.importReport(id: id) }, section: "/imports",
            back: "All runs", title: { "Import \($0.id) of \($0.source.rawValue)" }, isUnderWay: { $0.status == .running }
        ) { report, html in
            let fields: [(String, PageTable.Cell)] = zip(Self.listPage.columns.map(\.title), Self.cells(report)).map { ($0, $1) }
            PageTable.fields(fields + [("Error", .init(report.error ?? "—"))], into: &html)
            html.element("h2", PageTable.counted(report.rejected, "rejected record", "rejected records"))
            if report.rejected > report.rejections.count {
                html.element("p", ["class": "muted"], "The first \(report.rejections.count) are listed.")
            }
            let rows = report.rejections.map { rejection -> [PageTable.Cell] in
                [.init(String(rejection.index)), .init(rejection.key ?? "—"), .init(rejection.reason)]
            }
            PageTable.write(
                [.init(title: "Record", isNumber: true), .init(title: "Key"), .init(title: "Reason")], rows: rows, request: request,
                empty: "Every record was taken.", into: &html)
        }
    }

    @Sendable static func cells(_ report: ImportReport) -> [PageTable.Cell] {
        [
            .init(String(report.id), link: "/imports/\(report.id)"), .init(report.source.rawValue), .init(report.status.rawValue),
            .init(report.startedAt), .init(report.finishedAt ?? "—"),
        ] + [report.fetched, report.inserted, report.updated, report.unchanged, report.deleted, report.rejected].map { .init(String($0)) }
    }
}
