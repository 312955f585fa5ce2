import Hummingbird

/// What a GET is answered with: JSON, as every client library and curl get it, a page for a person, or for a list
/// the whole of it exported (`Exports`).
///
/// `?format=json`, `html`, `ndjson` or `csv` decides. Without it, a request gets a page only when its `Accept` prefers
/// `text/html` to JSON, as a browser's does (`text/html,…,*/*;q=0.8`), and a list an export only when its `Accept`
/// prefers `application/x-ndjson` or `text/csv` to JSON; `*/*`, `application/json`, no `Accept` or a tie get JSON,
/// byte for byte what they always got.
enum ResponseFormat: String {
    case json
    case html
    case ndjson
    case csv

    /// The format a request asks for; `lists` says whether the route is a list, the only one that is exported.
    init(_ request: Request, lists: Bool = false) throws(Problem) {
        // The query is read into a dictionary only when it may name a format: every request is negotiated. An empty
        // format is absent, as any empty parameter is (`QueryReader`).
        if Self.mayName(request.uri.string), let asked = request.uri.queryParameters[values: "format"].first(where: { !$0.isEmpty }) {
            guard let format = ResponseFormat(rawValue: String(asked)), lists || format.export == nil else {
                let formats = lists ? "json, html, ndjson or csv" : "json or html (ndjson and csv export the lists)"
                throw Problem.badParameter("format", "format must be \(formats), got '\(asked)'")
            }
            self = format
            return
        }
        var preference = Preference()
        HeaderBytes.forEachValue(of: .accept, in: request.headers) { preference.read($0) }
        self = preference.format(lists: lists)
    }

    /// The export this format asks for, if it is one.
    var export: ExportFormat? { ExportFormat(rawValue: rawValue) }

    /// Whether the path and query `uri` may hold a `format` parameter (its name, in any encoding, holds an `f`).
    private static func mayName(_ uri: String) -> Bool {
        guard let query = uri.utf8.firstIndex(of: UInt8(ascii: "?")) else { return false }
        return uri.utf8[query...].contains { $0 == UInt8(ascii: "f") || $0 == UInt8(ascii: "F") || $0 == UInt8(ascii: "%") }
    }

    /// The qualities the ranges of `Accept` read so far give a page and JSON. Several Accept fields count as their
    /// ranges would be listed in one.
    private struct Preference {
        var page = 0
        var json = (exact: -1, type: -1, any: 0)
        var ndjson = 0
        var csv = 0

        /// The format the ranges prefer; an export only for a list.
        func format(lists: Bool) -> ResponseFormat {
            // The most specific range that names JSON gives its quality (RFC 9110, 12.5.1).
            let jsonQuality = json.exact >= 0 ? json.exact : json.type >= 0 ? json.type : json.any
            let export = lists && max(ndjson, csv) > max(jsonQuality, page)
            if export { return ndjson >= csv ? .ndjson : .csv }
            return page > jsonQuality ? .html : .json
        }

        mutating func read(_ header: HeaderBytes.Bytes) {
            HeaderBytes.forEach(in: header, separatedBy: UInt8(ascii: ",")) { range in
                let typeEnd = range.firstIndex(of: UInt8(ascii: ";")) ?? range.endIndex
                let type = HeaderBytes.trimmed(range[..<typeEnd])
                var quality = ResponseFormat.fullQuality
                let parameters = typeEnd == range.endIndex ? range[typeEnd...] : range[(typeEnd + 1)...]
                HeaderBytes.forEach(in: parameters, separatedBy: UInt8(ascii: ";")) { parameter in
                    let parameter = HeaderBytes.trimmed(parameter)
                    if parameter.count > 2, HeaderBytes.equalIgnoringCase(parameter.prefix(2), "q=") {
                        quality = ResponseFormat.thousandths(parameter.dropFirst(2))
                    }
                }
                if HeaderBytes.equalIgnoringCase(type, "text/html") || HeaderBytes.equalIgnoringCase(type, "application/xhtml+xml") {
                    page = max(page, quality)
                } else if HeaderBytes.equalIgnoringCase(type, "application/x-ndjson") {
                    ndjson = max(ndjson, quality)
                } else if HeaderBytes.equalIgnoringCase(type, "text/csv") {
                    csv = max(csv, quality)
                } else if HeaderBytes.equalIgnoringCase(type, "application/json") {
                    json.exact = max(json.exact, quality)
                } else if HeaderBytes.equalIgnoringCase(type, "application/*") {
                    json.type = max(json.type, quality)
                } else if HeaderBytes.equalIgnoringCase(type, "*/*") {
                    json.any = max(json.any, quality)
                }
            }
        }
    }

    /// A quality of 1, in thousandths.
    private static let fullQuality = 1000

    /// A quality value (`0`, `0.8`, `1.000`: at most three decimals, RFC 9110, 12.4.2) in thousandths; one that is
    /// not a number counts as 1, as a range without a quality does.
    private static func thousandths(_ text: HeaderBytes.Bytes) -> Int {
        guard let first = text.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return fullQuality }
        var value = Int(first - UInt8(ascii: "0")) * 1000
        var rest = text.dropFirst()
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            var scale = 100
            for byte in rest.prefix(3) {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return fullQuality }
                value += Int(byte - UInt8(ascii: "0")) * scale
                scale /= 10
            }
            rest = rest.dropFirst(3)
        }
        return rest.isEmpty ? min(value, fullQuality) : fullQuality
    }
}
