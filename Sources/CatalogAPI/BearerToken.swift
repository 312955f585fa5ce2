import Hummingbird

/// Guards write endpoints with `Authorization: Bearer <token>`.
struct BearerToken: Sendable {
    /// nil: no token configured, so every write is refused.
    let expected: [UInt8]?

    init(_ token: String?) {
        expected = token.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
    }

    /// Throws 403 when writes are not configured, 401 when the token is missing or wrong.
    func authorize(_ request: Request) throws(Problem) {
        guard let expected else {
            throw Problem(
                .forbidden, type: "writes-disabled",
                detail: "writes are disabled: start catalogd with --api-token or CATALOG_API_TOKEN (or --api-token-file) to enable them")
        }
        let challenge: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"catalogd\""]
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw Problem(.unauthorized, type: "unauthorized", detail: "this endpoint needs Authorization: Bearer <token>", headers: challenge)
        }
        guard Self.constantTimeEqual(Array(header.utf8.dropFirst(7)), expected) else {
            throw Problem(.unauthorized, type: "unauthorized", detail: "the bearer token is not valid", headers: challenge)
        }
    }

    /// Compares without returning early, so the time taken does not tell how much of a guess was right.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
