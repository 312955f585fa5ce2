import Hummingbird

/// Builds this service's own absolute URLs: from `--public-url` when set, else from the request's Host.
struct RequestURLs: Sendable {
    /// Without a trailing slash.
    let publicURL: String?

    init(publicURL: String?) {
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    func base(for request: Request) -> String {
        if let publicURL { return publicURL }
        let host = request.head.authority ?? ""
        // The Host header is client input that ends up inside response bodies: accept host[:port] characters only.
        let isPlausibleHost =
            !host.isEmpty && host.utf8.count <= 255
            && host.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
                case UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "_"): true
                default: false
                }
            }
        return "http://" + (isPlausibleHost ? host : "localhost")
    }

    /// The URL of the same list with its cursor replaced; every other parameter is kept as the client sent it.
    static func listURL(base: String, request: Request, cursor: String) -> String {
        var parameters = (request.uri.query ?? "").split(separator: "&").filter { !$0.hasPrefix("cursor=") && $0 != "cursor" }
        parameters.append("cursor=\(cursor)"[...])
        return base + request.uri.path + "?" + parameters.joined(separator: "&")
    }
}
