import Foundation
import PostgresNIO

/// A `postgres://` or `postgresql://` URL: `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=MODE`.
///
/// Its `description` never holds the password, so it can name the store in logs, errors and `/metrics`.
/// `sslmode` takes libpq's common values: `disable`, `prefer` (the default: encrypted when the server offers it),
/// `require` (always encrypted), both without checking the server's certificate as libpq does, and
/// `verify-full` (encrypted, and the certificate checked against the system's roots and the host name).
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
            // URLComponents gives the user, password and path already percent-decoded.
            host: host, port: components.port ?? 5432, username: username, password: components.password, database: database, tls: tls)
    }

    /// The URL with the password left out.
    public var description: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
    }

    private static var unchecked: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }

    /// The TLS settings of `tls`, nil for none. As libpq does, only verify-full checks the server's certificate.
    private var transportSecurity: (configuration: TLSConfiguration, required: Bool)? {
        switch tls {
        case .disable: nil
        case .prefer: (Self.unchecked, false)
        case .require: (Self.unchecked, true)
        case .verifyFull: (.makeClientConfiguration(), true)
        }
    }

    func clientConfiguration(poolSize: Int, plans: PlanChoice = .perRun) -> PostgresClient.Configuration {
        let tlsConfiguration: PostgresClient.Configuration.TLS
        switch transportSecurity {
        case .none: tlsConfiguration = .disable
        case .some((let security, let required)): tlsConfiguration = required ? .require(security) : .prefer(security)
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tlsConfiguration)
        configuration.options.maximumConnections = poolSize
        configuration.options.connectTimeout = .seconds(3)
        if plans == .generic { configuration.options.additionalStartupParameters = [("plan_cache_mode", "force_generic_plan")] }
        return configuration
    }

    /// How the server plans a statement with parameters on a pool's connections.
    enum PlanChoice {
        /// As it chooses: for the values of each run, and for a prepared statement after five runs maybe once for all.
        case perRun
        /// Once for any values (`PostgresGenericPlanPool`).
        case generic
    }

    /// The settings of a single connection outside the pool, given up after `connectTimeout`.
    func connectionConfiguration(connectTimeout: Duration) throws -> PostgresConnection.Configuration {
        let tlsConfiguration: PostgresConnection.Configuration.TLS
        switch transportSecurity {
        case .none: tlsConfiguration = .disable
        case .some((let security, let required)):
            let context = try NIOSSLContext(configuration: security)
            tlsConfiguration = required ? .require(context) : .prefer(context)
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tlsConfiguration)
        configuration.options.connectTimeout = TimeAmount(connectTimeout)
        return configuration
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// A `--database` value that looks like a PostgreSQL URL but cannot be used; the reason names no password.
public struct InvalidPostgresURL: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    public init(reason: String) {
        self.reason = reason
    }
    public var description: String { "not a usable PostgreSQL URL: \(reason)" }
}
