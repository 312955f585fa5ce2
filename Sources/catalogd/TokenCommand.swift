import ArgumentParser
import CatalogAPI
import CatalogModel
import CatalogStore
import Foundation

extension Catalogd {
    /// `catalogd token create|list|revoke`: named, scoped writers, kept in the store that `--database` names, so that
    /// a running service (every replica of it) sees a change within a second.
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create, list and revoke the named tokens writers use.", subcommands: [Create.self, List.self, Revoke.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Create a token and print its secret, alone on the last line: it is shown this once and kept nowhere.")

            @OptionGroup var common: CommonOptions
            @Argument(help: "The token's name: \(APIToken.nameRule). Its changes show as token:NAME in the history.") var name: String
            @Option(name: .customLong("scope"), help: "A scope it holds, repeated for more: \(TokenScope.names).") var scopes: [String] = []
            @Option(help: "How long until it expires, e.g. 90d, 12h (default: never).") var expires: String?

            func run() async throws {
                let logger = try common.bootstrapLogging()
                // A refusal is printed as `Error: <why>` and exits 1, without the usage text a ValidationError adds.
                let (token, secret) = try await common.withStore(logger: logger) { store in
                    try await TokenIssuer.create(store, name: name, scopes: scopes, expires: expires)
                }
                let held = token.scopes.map(\.rawValue).joined(separator: ", ")
                print("created token \(token.name) with \(held)\(token.expiresAt.map { ", expiring \($0)" } ?? "")")
                print(secret)
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the tokens: name, scopes, created, last used, expiry; never a secret.")

            @OptionGroup var common: CommonOptions

            func run() async throws {
                let logger = try common.bootstrapLogging()
                let tokens = try await common.withStore(logger: logger) { store in try await store.tokens() }
                let rows =
                    [["NAME", "SCOPES", "CREATED", "LAST USED", "EXPIRES"]]
                    + tokens.map {
                        [$0.name, $0.scopes.map(\.rawValue).joined(separator: ","), $0.createdAt, $0.lastUsedAt ?? "never", $0.expiresAt ?? "never"]
                    }
                for line in TextTable.lines(rows) { print(line) }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a token: every running replica refuses it within a second.")

            @OptionGroup var common: CommonOptions
            @Argument(help: "The token's name.") var name: String

            func run() async throws {
                let logger = try common.bootstrapLogging()
                guard try await common.withStore(logger: logger, { store in try await store.revokeToken(name: name) }) else {
                    throw CommandFailure(description: "no token named '\(name)'")
                }
                print("revoked token \(name)")
            }
        }
    }
}
