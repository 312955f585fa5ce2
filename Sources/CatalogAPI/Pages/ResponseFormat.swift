import Hummingbird

/// What a GET is answered with: JSON, as every client library and curl get it, or a page for a person.
///
/// `?format=json` or `?format=html` decides. Without it, a request gets a page only when its `Accept` prefers
/// `text/html` to JSON, as a browser's does (`text/html,…,*/*;q=0.8`); `*/*`, `application/json`, no `Accept`
/// or a tie get JSON, byte for byte what they always got.
enum ResponseFormat: String {
    case json
    case html

    init(_ request: Request) throws(Problem) {
        if let asked = request.uri.queryParameters["format"] {
            guard let format = ResponseFormat(rawValue: String(asked)) else {
                throw Problem.badParameter("format", "format must be json or html, got '\(asked)'")
            }
            self = format
            return
        }
        var page = 0.0
        var json = (exact: -1.0, type: -1.0, any: 0.0)
        for header in request.headers[values: .accept] {
            for range in header.split(separator: ",") {
                let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                guard let type = parts.first else { continue }
                let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
                switch type {
                case "text/html", "application/xhtml+xml": page = max(page, quality)
                case "application/json": json.exact = max(json.exact, quality)
                case "application/*": json.type = max(json.type, quality)
                case "*/*": json.any = max(json.any, quality)
                default: continue
                }
            }
        }
        // The most specific range that names JSON gives its quality (RFC 9110, 12.5.1).
        let jsonQuality = json.exact >= 0 ? json.exact : json.type >= 0 ? json.type : json.any
        self = page > jsonQuality ? .html : .json
    }
}
