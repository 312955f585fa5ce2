import CatalogStore
import Hummingbird

extension ResourceReads {
    /// A page for people: conditional and cached like the JSON of the same URL, under a tag of its own.
    func page(_ request: Request, render: () async throws -> (bytes: [UInt8], versions: StoreVersions)) async throws -> Response {
        var response = try await JSONResponder.conditionalGET(
            request, store: store, cache: cache, baseURL: urls.base(for: request), name: name + "-page", family: family,
            contentType: PageURLs.contentType, render: render)
        response.headers.append(contentsOf: PageSecurity.headers)
        return response
    }
}

/// The links pages write: paths on this service, so that a page works whatever name it was reached by.
enum PageURLs {
    static let contentType = "text/html; charset=utf-8"

    /// The request's own URL with `format=json`: the same view as JSON.
    static func json(_ request: Request) -> String {
        RequestURLs.narrowedURL(base: "", request: request, name: "format", value: "json", keepingCursor: true)
    }

    /// The request's list narrowed to `value` of `name`, from its first page.
    static func narrowed(_ request: Request, _ name: String, _ value: String) -> String {
        RequestURLs.narrowedURL(base: "", request: request, name: name, value: value)
    }

    /// The request's list from `cursor`.
    static func list(_ request: Request, cursor: String) -> String {
        RequestURLs.listURL(base: "", request: request, cursor: cursor)
    }
}
