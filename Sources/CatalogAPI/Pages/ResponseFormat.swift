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
        // The query is read into a dictionary only when it may name a format: every request is negotiated.
        if Self.mayName(request.uri.string), let asked = request.uri.queryParameters["format"] {
            guard let format = ResponseFormat(rawValue: String(asked)) else {
                throw Problem.badParameter("format", "format must be json or html, got '\(asked)'")
            }
            self = format
            return
        }
        var accept = request.headers[.accept] ?? ""
        self = accept.withUTF8 { Self.negotiate($0) }
    }

    /// Whether the path and query `uri` may hold a `format` parameter (its name, in any encoding, holds an `f`).
    private static func mayName(_ uri: String) -> Bool {
        guard let query = uri.utf8.firstIndex(of: UInt8(ascii: "?")) else { return false }
        return uri.utf8[query...].contains { $0 == UInt8(ascii: "f") || $0 == UInt8(ascii: "F") || $0 == UInt8(ascii: "%") }
    }

    /// The format an `Accept` header's ranges prefer. Read as bytes, without splitting into arrays or strings: every
    /// request is negotiated, and a browser sends a long header. HTTPFields joins several Accept fields with commas,
    /// as their ranges would be listed in one.
    private static func negotiate(_ header: UnsafeBufferPointer<UInt8>) -> ResponseFormat {
        var page = 0
        var json = (exact: -1, type: -1, any: 0)
        var ranges = header[...]
        while !ranges.isEmpty {
            let end = ranges.firstIndex(of: UInt8(ascii: ",")) ?? ranges.endIndex
            let range = ranges[..<end]
            ranges = end == ranges.endIndex ? ranges[end...] : ranges[(end + 1)...]
            let typeEnd = range.firstIndex(of: UInt8(ascii: ";")) ?? range.endIndex
            let type = trimmed(range[..<typeEnd])
            var quality = Self.fullQuality
            var parameters = range[typeEnd...]
            while let semicolon = parameters.firstIndex(of: UInt8(ascii: ";")) {
                let next = parameters[(semicolon + 1)...].firstIndex(of: UInt8(ascii: ";")) ?? parameters.endIndex
                let parameter = trimmed(parameters[(semicolon + 1)..<next])
                if parameter.count > 2, equalIgnoringCase(parameter.prefix(2), "q=") { quality = thousandths(parameter.dropFirst(2)) }
                parameters = parameters[next...]
            }
            if equalIgnoringCase(type, "text/html") || equalIgnoringCase(type, "application/xhtml+xml") {
                page = max(page, quality)
            } else if equalIgnoringCase(type, "application/json") {
                json.exact = max(json.exact, quality)
            } else if equalIgnoringCase(type, "application/*") {
                json.type = max(json.type, quality)
            } else if equalIgnoringCase(type, "*/*") {
                json.any = max(json.any, quality)
            }
        }
        // The most specific range that names JSON gives its quality (RFC 9110, 12.5.1).
        let jsonQuality = json.exact >= 0 ? json.exact : json.type >= 0 ? json.type : json.any
        return page > jsonQuality ? .html : .json
    }

    /// A quality of 1, in thousandths.
    private static let fullQuality = 1000

    /// A quality value (`0`, `0.8`, `1.000`: at most three decimals, RFC 9110, 12.4.2) in thousandths; one that is
    /// not a number counts as 1, as a range without a quality does.
    private static func thousandths(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Int {
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

    /// `bytes` without the spaces and tabs around them.
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }

    /// Whether `bytes` spell `literal` (lowercase ASCII), in any case.
    private static func equalIgnoringCase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, lower in
                byte == lower || ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) && byte | 0x20 == lower)
            }
        }
    }
}
