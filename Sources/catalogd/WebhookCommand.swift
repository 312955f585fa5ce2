import ArgumentParser
import CatalogAPI
import CatalogModel
import CatalogStore

extension Catalogd {
    /// `catalogd webhook create|list|delete`: subscriptions to the history, kept in the store that `--database` names;
    /// the process that sends (one replica of a deployment) picks a change up within a second.
    struct WebhookCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "webhook",
            abstract: "Create, list and delete the webhooks that receive the history's changes.", subcommands: [Create.self, List.self, Delete.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Subscribe a URL to the changes and print its signing secret, alone on the last line: it is shown this once.")

            @OptionGroup var common: CommonOptions
            @OptionGroup var webhooks: WebhookOptions
            @Argument(help: "Where each message is POSTed: an http or https URL whose host resolves to a public address.") var url: String
            @Option(name: .customLong("entity"), help: "A kind of change it receives, repeated for more: product, film (default: both).")
            var entities: [String] = []
            @Option(help: "The seq after which it starts, e.g. an export's X-Catalog-Seq (default: the newest, so only later changes).")
            var since: Int64?

            func run() async throws {
                let logger = try common.bootstrapLogging()
                let settings = try webhooks.settings(common)
                let webhook = try await common.withStore(logger: logger) { store in
                    try await WebhookIssuer.create(store, url: url, entities: entities.isEmpty ? nil : entities, since: since, settings: settings)
                }
                let kinds = webhook.entities.map(\.rawValue).joined(separator: ", ")
                print("created webhook \(webhook.id) to \(webhook.url) for \(kinds) changes after seq \(webhook.deliveredSeq)")
                print(webhook.secret)
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List the webhooks: id, state, delivered seq, entities, URL, last error; never a secret.")

            @OptionGroup var common: CommonOptions

            func run() async throws {
                let logger = try common.bootstrapLogging()
                let webhooks = try await common.withStore(logger: logger) { store in try await store.webhooks() }
                let rows =
                    [["ID", "STATE", "DELIVERED", "ENTITIES", "URL", "LAST ERROR"]]
                    + webhooks.map {
                        [
                            String($0.id), $0.state.rawValue, String($0.deliveredSeq), $0.entities.map(\.rawValue).joined(separator: ","), $0.url,
                            $0.lastError ?? "",
                        ]
                    }
                for line in TextTable.lines(rows) { print(line) }
            }
        }

        struct Delete: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Delete a webhook: nothing more is sent to it.")

            @OptionGroup var common: CommonOptions
            @Argument(help: "The webhook's id, as webhook list shows it.") var id: Int64

            func run() async throws {
                let logger = try common.bootstrapLogging()
                guard try await common.withStore(logger: logger, { store in try await store.deleteWebhook(id: id) }) else {
                    throw CommandFailure(description: "no webhook \(id)")
                }
                print("deleted webhook \(id)")
            }
        }
    }
}
