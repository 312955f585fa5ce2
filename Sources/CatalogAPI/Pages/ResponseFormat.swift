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
        // Read as bytes, without splitting into arrays: every request is negotiated, and a browser sends a long header.
        // HTTPFields joins several Accept fields with commas, as their ranges would be listed in one.
        var ranges = (request.headers[.accept] ?? "").utf8[...]
        while !ranges.isEmpty {
            let end = ranges.firstIndex(of: UInt8(ascii: ",")) ?? ranges.endIndex
            let range = ranges[..<end]
            ranges = end == ranges.endIndex ? ranges[end...] : ranges[ranges.index(after: end)...]
            let typeEnd = range.firstIndex(of: UInt8(ascii: ";")) ?? range.endIndex
            let type = Self.trimmed(range[..<typeEnd])
            var quality = 1.0
            var parameters = range[typeEnd...]
            while let semicolon = parameters.firstIndex(of: UInt8(ascii: ";")) {
                let start = parameters.index(after: semicolon)
                let next = parameters[start...].firstIndex(of: UInt8(ascii: ";")) ?? parameters.endIndex
                let parameter = Self.trimmed(parameters[start..<next])
                if parameter.count > 2, Self.equalIgnoringCase(parameter.prefix(2), "q=") {
                    quality = Double(String(decoding: parameter.dropFirst(2), as: UTF8.self)) ?? 1
                }
                parameters = parameters[next...]
            }
            if Self.equalIgnoringCase(type, "text/html") || Self.equalIgnoringCase(type, "application/xhtml+xml") {
                page = max(page, quality)
            } else if Self.equalIgnoringCase(type, "application/json") {
                json.exact = max(json.exact, quality)
            } else if Self.equalIgnoringCase(type, "application/*") {
                json.type = max(json.type, quality)
            } else if Self.equalIgnoringCase(type, "*/*") {
                json.any = max(json.any, quality)
            }
        }
        // The most specific range that names JSON gives its quality (RFC 9110, 12.5.1).
        let jsonQuality = json.exact >= 0 ? json.exact : json.type >= 0 ? json.type : json.any
        self = page > jsonQuality ? .html : .json
    }

    /// `bytes` without the spaces and tabs around them.
    private static func trimmed(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }

    /// Whether `bytes` spell `literal` (lowercase ASCII), in any case.
    private static func equalIgnoringCase(_ bytes: Substring.UTF8View.SubSequence, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, lower in
                byte == lower || ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) && byte | 0x20 == lower)
            }
        }
    }
}
