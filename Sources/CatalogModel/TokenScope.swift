/// What a token may do; its raw value is how the CLI, the API and the store name it.
public enum TokenScope: String, Sendable, CaseIterable, Comparable {
    case productsWrite = "products:write"
    case filmsWrite = "films:write"
    case importsRun = "imports:run"
    case tokensAdmin = "tokens:admin"
    case webhooksAdmin = "webhooks:admin"
    /// Reads, when the service is started with `--require-read-token`.
    case read

    public static func < (lhs: TokenScope, rhs: TokenScope) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }

    /// Every scope's name, as error messages list them.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
