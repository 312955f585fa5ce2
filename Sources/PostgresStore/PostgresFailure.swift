import CatalogStore
import PostgresNIO

/// How the PostgreSQL store tells a server that is away from a statement the server refused.
enum PostgresFailure {
    /// What went wrong, in words that name no password or query text.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PSQLError: error.serverInfo?[.message] ?? "\(error.code)"
        case let error as StoreUnavailable: error.reason
        case let error as PostgresConnectionClosed: error.description
        default: String(describing: type(of: error))
        }
    }

    /// Whether `error` means the connection failed, or the server is starting or stopping: server errors of class
    /// 08 (connection exception) and 57 (operator intervention) count.
    static func isConnectionFailure(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return error is StoreUnavailable || error is PostgresConnectionClosed }
        if [.connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed].contains(error.code) {
            return true
        }
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("08") || state.hasPrefix("57")
    }
}
