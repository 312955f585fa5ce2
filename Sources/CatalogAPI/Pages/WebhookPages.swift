import CatalogModel
import CatalogStore
import Hummingbird

/// `/webhooks` and `/webhooks/{id}` as pages, for a token with `webhooks:admin` (the JSON's own guard): each
/// subscription with how far it has delivered and why it last failed, and one subscription with its newest attempts.
/// Made afresh for each request: they change with every delivery.
enum WebhookPages {
    static let columns: [PageTable.Column] = [
        .init(title: "Id", isNumber: true), .init(title: "URL"), .init(title: "Entities"), .init(title: "State"),
        .init(title: "Delivered seq", isNumber: true), .init(title: "Failures", isNumber: true), .init(title: "Last error"),
        .init(title: "Next attempt"),
    ]

    static func list(_ webhooks: [Webhook], lastSeq: Int64, request: Request) -> Response {
        let bytes = PageLayout.render(title: "Webhooks", section: "/webhooks", jsonURL: PageURLs.json(request)) { html in
            html.element(
                "p", ["class": "muted"],
                "Every change up to seq \(lastSeq) is in the history; each subscription receives its changes after its delivered seq, in order.")
            PageTable.write(
                columns, rows: webhooks.map(cells), request: request,
                empty: "No webhook yet: POST /webhooks or catalogd webhook create makes one.", into: &html)
        }
        return PageResponse.uncached(bytes)
    }

    static func item(_ webhook: Webhook, attempts: [WebhookAttempt], request: Request) -> Response {
        let bytes = PageLayout.render(title: "Webhook \(webhook.id)", section: "/webhooks", jsonURL: PageURLs.json(request)) { html in
            html.element("p") { $0.link("/webhooks", "All webhooks") }
            PageTable.fields(
                zip(columns.map(\.title), cells(webhook)).map { ($0, $1) } + [
                    ("Failing since", .init(webhook.failingSince ?? "—")), ("Created", .init(webhook.createdAt)),
                ], into: &html)
            html.element("h2", "Newest attempts")
            let rows = attempts.map { attempt -> [PageTable.Cell] in
                [
                    .init(attempt.at), .init(attempt.messageID), .init("\(attempt.firstSeq)–\(attempt.lastSeq)"), .init(String(attempt.changes)),
                    .init(attempt.status.map(String.init) ?? "—"), .init(attempt.error ?? "—"), .init("\(attempt.durationMilliseconds) ms"),
                ]
            }
            PageTable.write(
                [
                    .init(title: "At"), .init(title: "Message"), .init(title: "Seqs"), .init(title: "Changes", isNumber: true),
                    .init(title: "Status", isNumber: true), .init(title: "Error"), .init(title: "Took", isNumber: true),
                ], rows: rows, request: request, empty: "Nothing sent yet.", into: &html)
        }
        return PageResponse.uncached(bytes)
    }

    @Sendable static func cells(_ webhook: Webhook) -> [PageTable.Cell] {
        [
            .init(String(webhook.id), link: "/webhooks/\(webhook.id)"), .init(webhook.url),
            .init(webhook.entities.map(\.rawValue).joined(separator: ", ")),
            .init(webhook.state.rawValue), .init(String(webhook.deliveredSeq)), .init(String(webhook.failures)), .init(webhook.lastError ?? "—"),
            .init(webhook.nextAttemptAt ?? "—"),
        ]
    }
}
