import CatalogStore
import Hummingbird

extension ResourceReads {
    /// A page for people: conditional and cached like the JSON of the same URL, under a tag of its own.
    func page(_ request: Request, render: () async throws -> (bytes: [UInt8], versions: StoreVersions)) async throws -> Response {
        var response = try await JSONResponder.conditionalGET(
            request, store: store, cache: cache, baseURL: urls.base(for: request), name: name + "-page", family: family,
            contentType: PageResponse.contentType, render: render)
        response.headers.append(contentsOf: PageSecurity.headers)
        return response
    }
}

/// The links pages write: paths on this service, so that a page works whatever name it was reached by.
enum PageURLs {
    /// The request's own URL with `format=json`: the same view as JSON.
    static func json(_ request: Request) -> String {
        RequestURLs.narrowedURL(base: "", request: request, name: "format", value: "json", keepingCursor: true)
    }

    /// The request's list narrowed to `value` of `name`, from its first page.
    static func narrowed(_ request: Request, _ name: String, _ value: String) -> String {
        RequestURLs.narrowedURL(base: "", request: request, name: name, value: value)
    }

    /// The request's URL in the form the service's links use, when it is not in it: a form submitted without script
    /// sends every field, empty ones too, and spaces as `+`. The API reads `+` as itself, so the page's links (its
    /// JSON among them) would not name the same list. An empty field is left out, as `QueryReader` reads it.
    static func canonical(_ request: Request) -> String? {
        guard let query = request.uri.query, !isCanonical(query) else { return nil }
        let kept = query.split(separator: "&").compactMap { field -> String? in
            guard let equals = field.firstIndex(of: "="), field.index(after: equals) != field.endIndex else { return nil }
            let value = field[field.index(after: equals)...]
            // A value with a broken escape is read as it stands, `+` and all (Hummingbird's `queryParameters`): left
            // so, it is read alike here and at the clean URL, and is as long in both, as a search's limit counts.
            guard isPercentDecodable(value) else { return String(field) }
            return String(field[...equals]) + value.replacingOccurrences(of: "+", with: "%20")
        }
        let canonical = kept.joined(separator: "&")
        guard canonical != query else { return nil }
        return request.uri.path + (kept.isEmpty ? "" : "?" + canonical)
    }

    /// Whether each `%` in `value` starts an escape of two hex digits, as Hummingbird needs to decode it.
    private static func isPercentDecodable(_ value: Substring) -> Bool {
        let bytes = Array(value.utf8)
        var index = 0
        while let percent = bytes[index...].firstIndex(of: UInt8(ascii: "%")) {
            guard percent + 2 < bytes.count, bytes[(percent + 1)...(percent + 2)].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit })
            else { return false }
            index = percent + 3
        }
        return true
    }

    /// Whether every field of `query` has a value and none holds `+`: read as bytes, since every page asks.
    private static func isCanonical(_ query: String) -> Bool {
        var (fieldHasValue, previous) = (false, UInt8(ascii: "&"))
        for byte in query.utf8 {
            switch byte {
            case UInt8(ascii: "+"): return false
            case UInt8(ascii: "&"):
                guard fieldHasValue, previous != UInt8(ascii: "=") else { return false }
                fieldHasValue = false
            case UInt8(ascii: "="): fieldHasValue = true
            default: break
            }
            previous = byte
        }
        return fieldHasValue && previous != UInt8(ascii: "=")
    }

    /// The parameters of `canonical` (a path and query on this service), read as the request for it would be.
    static func query(of canonical: String) -> QueryReader {
        QueryReader(Request(head: HTTPRequest(method: .get, scheme: nil, authority: nil, path: canonical), body: .init(buffer: ByteBuffer())))
    }

    /// `url` when it is an http or https address: a link a feed supplies is never `javascript:` or `data:`.
    static func external(_ url: String?) -> String? {
        guard let url, let scheme = url.split(separator: ":", maxSplits: 1).first?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return url
    }

    /// The request's list from `cursor`.
    static func list(_ request: Request, cursor: String) -> String {
        RequestURLs.listURL(base: "", request: request, cursor: cursor)
    }
}
