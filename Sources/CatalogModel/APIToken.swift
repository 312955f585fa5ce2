/// A named writer: what the store keeps of a token, never its secret.
public struct APIToken: Sendable, Equatable {
    public var name: String
    /// Sorted, each once.
    public var scopes: [TokenScope]
    public var createdAt: String
    /// Updated at most once a minute, so that a busy writer does not write on every request.
    public var lastUsedAt: String?
    /// nil: never expires.
    public var expiresAt: String?

    public init(name: String, scopes: some Sequence<TokenScope>, createdAt: String, lastUsedAt: String? = nil, expiresAt: String? = nil) {
        self.name = name
        self.scopes = Set(scopes).sorted()
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }

    /// The name of the `--api-token` secret, which no stored token may take.
    public static let bootstrapName = "bootstrap"
    /// What a name may hold: it shows in the history as `token:NAME`, in URLs and in logs.
    public static let nameRule = "1 to 64 of a-z, 0-9, '.', '_' and '-', starting with a letter or digit"

    /// Why `name` cannot name a stored token, or nil when it can.
    public static func problem(withName name: String) -> String? {
        let bytes = Array(name.utf8)
        let allowed = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard (1...64).contains(bytes.count), allowed(bytes[0]),
            bytes.allSatisfy({ allowed($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { return "a token's name must be \(nameRule), got '\(name)'" }
        if name == bootstrapName { return "'\(bootstrapName)' names the --api-token secret; choose another name" }
        return nil
    }

    /// The author of the changes it makes, as the history records it.
    public var author: String { "token:\(name)" }

    /// Whether it has expired by `now` (an ISO 8601 UTC timestamp, which sorts as text).
    public func hasExpired(at now: String) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    /// Parses scope names; the error names the first unknown one.
    public static func scopes(_ names: some Sequence<String>) -> Result<[TokenScope], UnknownScope> {
        var scopes: [TokenScope] = []
        for name in names {
            guard let scope = TokenScope(rawValue: name) else { return .failure(UnknownScope(name: name)) }
            scopes.append(scope)
        }
        return .success(Set(scopes).sorted())
    }

    /// A scope name that is none of `TokenScope`'s.
    public struct UnknownScope: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "unknown scope '\(name)'; the scopes are \(TokenScope.names)" }
    }
}
