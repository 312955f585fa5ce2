import ArgumentParser
import CatalogAPI
import CatalogImport
import CatalogModel
import CatalogStore
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `catalogd`: keeps a local copy of a remote catalogue in sync and serves it over REST.
@main
struct Catalogd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keeps a local copy of a remote films and products catalogue in sync and serves it over REST.",
        subcommands: [Serve.self, Import.self, Check.self, Migrate.self, Backup.self, Token.self, WebhookCommand.self, Healthcheck.self],
        defaultSubcommand: Serve.self)

    static func main() async {
        MallocArenas.limit()
        await main(nil)
    }
}
