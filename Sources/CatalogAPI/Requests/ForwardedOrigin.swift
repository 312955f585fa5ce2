import HTTPTypes

/// The scheme and host a client used to reach the proxy in front of catalogd, as that proxy tells it: RFC 7239
/// `Forwarded: proto=…;host=…`, else `X-Forwarded-Proto` and `X-Forwarded-Host`.
///
/// Each proxy of a chain appends its own element, and only the nearest one is trusted, so the last element
/// counts: an earlier one may have come from the client itself. A value that is not `http` or `https`, or not a
/// plausible `host[:port]`, is ignored, since it would end up inside response bodies and `Location` headers.
struct ForwardedOrigin: Equatable {
    /// `http` or `https`.
    var scheme: String?
    /// `host[:port]`.
    var host: String?

    init(_ headers: HTTPFields) {
        let forwarded = Self.lastForwardedElement(headers[values: .forwarded])
        scheme = Self.scheme(forwarded["proto"]) ?? Self.scheme(Self.lastListValue(headers[values: .xForwardedProto]))
        host = Self.host(forwarded["host"]) ?? Self.host(Self.lastListValue(headers[values: .xForwardedHost]))
    }

    private static func scheme(_ value: String?) -> String? {
        guard let scheme = value?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return scheme
    }

    private static func host(_ value: String?) -> String? {
        guard let value, RequestURLs.isPlausibleHost(value) else { return nil }
        return value
    }

    /// Without HTTP's optional whitespace (spaces and tabs) at either end.
    private static func trimmed(_ text: some StringProtocol) -> String {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        var text = text[...]
        while let first = text.first, isSpace(first) { text = text.dropFirst() }
        while let last = text.last, isSpace(last) { text = text.dropLast() }
        return String(text)
    }

    /// The last value of a comma-separated header, which may be sent as several lines.
    private static func lastListValue(_ lines: [String]) -> String? {
        guard let last = lines.last?.split(separator: ",", omittingEmptySubsequences: false).last else { return nil }
        let value = trimmed(last)
        return value.isEmpty ? nil : value
    }

    /// The parameters of the last element of `Forwarded`, names lower-cased and quoted values unquoted;
    /// empty when the header is absent or its last element is malformed.
    private static func lastForwardedElement(_ lines: [String]) -> [String: String] {
        guard let line = lines.last else { return [:] }
        // Split on the commas and semicolons outside quoted strings (an IPv6 `for="[…]:port"` holds colons, and a
        // quoted value may hold anything).
        var elements: [[String]] = [[]]
        var current = ""
        var quoted = false
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if !quoted, character == ";" || character == "," {
                elements[elements.count - 1].append(current)
                current = ""
                if character == "," { elements.append([]) }
            } else {
                current.append(character)
            }
        }
        guard !quoted else { return [:] }
        elements[elements.count - 1].append(current)
        var parameters: [String: String] = [:]
        for pair in elements[elements.count - 1] {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            let name = trimmed(parts[0]).lowercased()
            if parameters[name] == nil { parameters[name] = trimmed(parts[1]) }
        }
        return parameters
    }
}

extension HTTPField.Name {
    /// RFC 7239: `for`, `by`, `proto` and `host` of each proxy a request went through.
    static let forwarded = HTTPField.Name("Forwarded")!
    /// The scheme the client used to reach the proxy (a de facto standard older than `Forwarded`).
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    /// The Host the client sent to the proxy.
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host")!
}
