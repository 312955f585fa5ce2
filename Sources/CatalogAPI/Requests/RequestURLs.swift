import Hummingbird

/// Builds this service's own absolute URLs: from `--public-url` when set, else from the request's Host (or, with
/// `--trust-proxy`, from what the proxy in front says the client asked for).
struct RequestURLs: Sendable {
    /// Without a trailing slash.
    let publicURL: String?
    /// Whether `Forwarded`, `X-Forwarded-Proto` and `X-Forwarded-Host` are believed; only a proxy that sets
    /// them itself, whatever the client sent, makes them safe to believe.
    let trustsProxy: Bool

    init(publicURL: String?, trustsProxy: Bool = false) {
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.trustsProxy = trustsProxy
    }

    func base(for request: Request) -> String {
        if let publicURL { return publicURL }
        // The Host header is client input that ends up inside response bodies: accept host[:port] only.
        var host = request.head.authority.flatMap { Self.isPlausibleHost($0) ? $0 : nil } ?? "localhost"
        var scheme = "http"
        if trustsProxy {
            let origin = ForwardedOrigin(request.headers)
            scheme = origin.scheme ?? scheme
            host = origin.host ?? host
        }
        return scheme + "://" + host
    }

    /// `name[:port]` or `[IPv6][:port]`, in at most 255 bytes: letters, digits, `.`, `-` and `_` in a name, hex
    /// digits, `:` and `.` between brackets, a port up to 65535. No spaces, slashes or control characters.
    static func isPlausibleHost(_ text: String) -> Bool {
        var text = text
        // Read in place: this runs for every request, the cached ones included.
        return text.withUTF8 { isPlausibleHost(bytes: $0) }
    }

    private static func isPlausibleHost(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (1...255).contains(bytes.count) else { return false }
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        let isHex = { (byte: UInt8) in
            isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
        let isNameByte = { (byte: UInt8) in
            isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        let rest: Slice<UnsafeBufferPointer<UInt8>>
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1,
                bytes[1..<close].allSatisfy({ isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
            rest = bytes[(close + 1)...]
        } else {
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            guard end > 0, bytes[..<end].allSatisfy(isNameByte) else { return false }
            rest = bytes[end...]
        }
        guard let colon = rest.first else { return true }
        let port = rest.dropFirst()
        guard colon == UInt8(ascii: ":"), (1...5).contains(port.count), port.allSatisfy(isDigit) else { return false }
        return port.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 65535
    }

    /// The URL of the same list with its cursor replaced; every other parameter is kept as the client sent it.
    /// Read as bytes: a page writes two of these, and comparing `Substring`s character by character cost more than
    /// a deep page's cursor.
    static func listURL(base: String, request: Request, cursor: String) -> String {
        let query = Array((request.uri.query ?? "").utf8)
        var url = Array(base.utf8)
        url.reserveCapacity(url.count + request.uri.path.utf8.count + query.count + cursor.utf8.count + 9)
        url.append(contentsOf: request.uri.path.utf8)
        url.append(UInt8(ascii: "?"))
        for parameter in query.split(separator: UInt8(ascii: "&")) where !isCursor(parameter) {
            url.append(contentsOf: parameter)
            url.append(UInt8(ascii: "&"))
        }
        url.append(contentsOf: "cursor=".utf8)
        url.append(contentsOf: cursor.utf8)
        return String(decoding: url, as: UTF8.self)
    }

    /// The whole of the request's list in `format` (`Exports`): its parameters but the paging (`cursor`, `page_size`),
    /// `facets` and `format`, then `format=`.
    static func exportURL(base: String, request: Request, format: ExportFormat) -> String {
        url(base: base, request: request, leavingOut: ["cursor", "page_size", "facets", "format"], then: ("format", format.rawValue))
    }

    /// The request's list narrowed to `value` of the parameter `name`, from its first page unless `keepingCursor`:
    /// the request's other parameters, then `name=value`.
    static func narrowedURL(base: String, request: Request, name: String, value: String, keepingCursor: Bool = false) -> String {
        let leftOut: Set<Substring> = keepingCursor ? [Substring(name)] : [Substring(name), "cursor"]
        return url(base: base, request: request, leavingOut: leftOut, then: (name, PathComponent.encode(value)))
    }

    /// The request's path and parameters as it sent them but those named in `leftOut`, then `parameter` (its value
    /// encoded already).
    private static func url(base: String, request: Request, leavingOut leftOut: Set<Substring>, then parameter: (name: String, value: String))
        -> String
    {
        var url = base + request.uri.path + "?"
        for kept in (request.uri.query ?? "").split(separator: "&") where !leftOut.contains(kept.prefix { $0 != "=" }) {
            url += kept + "&"
        }
        return url + parameter.name + "=" + parameter.value
    }

    /// `cursor` or `cursor=…`.
    private static func isCursor(_ parameter: ArraySlice<UInt8>) -> Bool {
        let name = "cursor".utf8
        return parameter.starts(with: name) && (parameter.count == name.count || parameter[parameter.startIndex + name.count] == UInt8(ascii: "="))
    }
}
