import PostgresNIO

/// The PostgreSQL server could not be reached, or went away during a request: a condition that passes, for
/// which the API answers 503 with `Retry-After`, never a 500.
public struct PostgresUnavailable: Error, Sendable, CustomStringConvertible {
    /// The store, as its location describes it (no password).
    public var store: String
    public var reason: String

    init(store: String, cause: any Error) {
        self.store = store
        reason = Self.describe(cause)
    }

    public var description: String { "the database at \(store) is unavailable: \(reason)" }

    /// What went wrong, in words that name no password or query text.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PSQLError: error.serverInfo?[.message] ?? "\(error.code)"
        // The server's own message (the simple query protocol's error type).
        case let error as PostgresError: error.description
        default: String(describing: type(of: error))
        }
    }

    /// Whether `error` is worth waiting out: the server is not there yet, or is starting or stopping.
    static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        return isConnectionFailure(error)
    }

    /// Whether `error` means the connection failed, rather than a statement that the server refused.
    /// Server errors of class 08 (connection exception) and 57 (operator intervention: shutting down, starting up) count.
    static func isConnectionFailure(_ error: PSQLError) -> Bool {
        if [.connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed].contains(error.code) {
            return true
        }
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("08") || state.hasPrefix("57")
    }
}
