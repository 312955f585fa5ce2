import Foundation
import PostgresNIO

/// A `postgres://` or `postgresql://` URL: `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=MODE`.
///
/// Its `description` never holds the password, so it can name the store in logs, errors and `/metrics`.
/// `sslmode` takes libpq's common values: `disable`, `prefer` (the default), `require` (encrypted, the
/// server's certificate not checked) and `verify-full` (encrypted and checked against the system's roots).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, CaseIterable {
        case disable
        case prefer
        case require
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    /// Whether `text` is a URL of this kind, rather than a file path.
    public static func names(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String, tls: TLSMode = .prefer) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
    }

    public init(url text: String) throws(InvalidPostgresURL) {
        guard Self.names(text), let components = URLComponents(string: text) else {
            throw InvalidPostgresURL(reason: "expected postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard let host = components.host, !host.isEmpty else { throw InvalidPostgresURL(reason: "the URL names no host") }
        guard let username = components.user, !username.isEmpty else { throw InvalidPostgresURL(reason: "the URL names no user") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw InvalidPostgresURL(reason: "the URL names no database") }
        var tls = TLSMode.prefer
        for item in components.queryItems ?? [] {
            guard item.name == "sslmode" else { throw InvalidPostgresURL(reason: "unknown parameter '\(item.name)'; only sslmode is read") }
            guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                throw InvalidPostgresURL(reason: "sslmode must be one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            tls = mode
        }
        self.init(
            host: host, port: components.port ?? 5432, username: username.removingPercentEncoding ?? username,
            password: components.password.map { $0.removingPercentEncoding ?? $0 }, database: database.removingPercentEncoding ?? database,
            tls: tls)
    }

    /// The URL with the password left out.
    public var description: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
    }

    func clientConfiguration(poolSize: Int) -> PostgresClient.Configuration {
        let tlsConfiguration: PostgresClient.Configuration.TLS
        switch tls {
        case .disable: tlsConfiguration = .disable
        case .prefer: tlsConfiguration = .prefer(.makeClientConfiguration())
        case .require:
            var unchecked = TLSConfiguration.makeClientConfiguration()
            unchecked.certificateVerification = .none
            tlsConfiguration = .require(unchecked)
        case .verifyFull: tlsConfiguration = .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tlsConfiguration)
        configuration.options.maximumConnections = poolSize
        configuration.options.connectTimeout = .seconds(3)
        return configuration
    }
}

/// A `--database` value that looks like a PostgreSQL URL but cannot be used; the reason names no password.
public struct InvalidPostgresURL: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { "not a usable PostgreSQL URL: \(reason)" }
}
