import CatalogImport
import CatalogStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SQLiteStore
import Testing
import Yams

@testable import CatalogAPI
@testable import CatalogStore

/// The operations of `openapi.yaml`, read with Yams.
struct SpecOperations {
    struct Operation {
        /// Status codes listed under `responses:`.
        var statuses: Set<Int> = []
        /// The `enum` of the `ordering` query parameter, when the operation has one.
        var orderings: [String]?
    }

    /// Keyed by `"GET /films/{episode_id}"`, path templates as written in the spec.
    var operations: [String: Operation] = [:]
    /// The `page_size` parameter's schema, from components.
    var pageSize: (minimum: Int?, maximum: Int?, defaultValue: Int?) = (nil, nil, nil)

    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "options"]

    init(_ document: Yams.Node) {
        let components = document["components"]
        // A parameter as written, or the one its `$ref` names under `components/parameters`.
        func resolved(_ parameter: Yams.Node) -> Yams.Node? {
            guard let reference = parameter["$ref"]?.string else { return parameter }
            let prefix = "#/components/parameters/"
            guard reference.hasPrefix(prefix) else { return nil }
            return components?["parameters"]?[String(reference.dropFirst(prefix.count))]
        }
        for (pathKey, pathItem) in document["paths"]?.mapping ?? [:] {
            guard let path = pathKey.string else { continue }
            let shared = pathItem["parameters"]?.array() ?? []
            for (methodKey, node) in pathItem.mapping ?? [:] {
                guard let method = methodKey.string, Self.methods.contains(method) else { continue }
                var operation = Operation()
                for (statusKey, _) in node["responses"]?.mapping ?? [:] {
                    if let status = statusKey.string.flatMap({ Int($0) }) { operation.statuses.insert(status) }
                }
                for parameter in (shared + (node["parameters"]?.array() ?? [])).compactMap(resolved)
                where parameter["name"]?.string == "ordering" && parameter["in"]?.string == "query" {
                    operation.orderings = parameter["schema"]?["enum"]?.array(of: String.self)
                }
                operations["\(method.uppercased()) \(path)"] = operation
            }
        }
        let pageSizeSchema = components?["parameters"]?["PageSize"]?["schema"]
        pageSize = (pageSizeSchema?["minimum"]?.int, pageSizeSchema?["maximum"]?.int, pageSizeSchema?["default"]?.int)
    }

    /// `"GET /films/{episode_id}"` → `"GET /films/{}"`, so parameter names do not matter.
    static func normalised(_ operation: String) -> String {
        var result = ""
        var inParameter = false
        for character in operation {
            if character == "{" {
                inParameter = true
                result.append("{}")
            } else if character == "}" {
                inParameter = false
            } else if !inParameter {
                result.append(character)
            }
        }
        return result
    }
}

@Suite("openapi.yaml describes the API")
struct OpenAPITests {
    /// The repository's `openapi.yaml`: three levels up from this file (Tests/CatalogAPITests/OpenAPITests.swift).
    static let specURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("openapi.yaml")

    static func specText() throws -> String {
        try String(decoding: Data(contentsOf: specURL), as: UTF8.self)
    }

    static func spec() throws -> SpecOperations {
        let document = try #require(try Yams.compose(yaml: specText()), "openapi.yaml holds no YAML document")
        return SpecOperations(document)
    }

    /// A router over an empty store in a fresh directory, with both feeds disabled and writes refused.
    static func withRouter(_ body: (Router<BasicRequestContext>) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-openapi-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "catalogd-openapi-tests")
        let store = try SQLiteCatalogStore(path: directory.appendingPathComponent("catalog.sqlite").path)
        try await body(feedlessRouter(store, logger: logger))
    }

    @Test func theServedDocumentIsTheRepositorysFileByteForByte() async throws {
        let file = Array(try Data(contentsOf: Self.specURL))
        try await Self.withRouter { router in
            let application = Application(router: router)
            try await application.test(.router) { client in
                let response = try await client.execute(uri: "/openapi.yaml", method: .get)
                let served = Array(response.body.readableBytesView)
                let firstDifference = zip(file, served).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(file.count, served.count)
                let identical = served == file
                #expect(response.status == .ok)
                #expect(
                    identical, "openapi.yaml (\(file.count) bytes) and GET /openapi.yaml (\(served.count) bytes) differ from byte \(firstDifference)")
            }
        }
    }

    @Test func everyRouteIsAnOperationOfTheSpecAndEveryOperationARoute() async throws {
        let spec = Set(try Self.spec().operations.keys.map(SpecOperations.normalised))
        try await Self.withRouter { router in
            let routes = Set(
                router.routes.filter { $0.method != .head }.map { route in
                    SpecOperations.normalised("\(route.method.rawValue) \(route.path)")
                })
            #expect(routes.count >= 20)
            #expect(routes.subtracting(spec).isEmpty, "routes missing from openapi.yaml: \(routes.subtracting(spec).sorted())")
            #expect(spec.subtracting(routes).isEmpty, "operations in openapi.yaml with no route: \(spec.subtracting(routes).sorted())")
        }
    }

    @Test func everyParameterFreeGETAnswersAStatusItsOperationLists() async throws {
        let spec = try Self.spec()
        let paths = spec.operations.keys.filter { $0.hasPrefix("GET ") && !$0.contains("{") }.map { String($0.dropFirst(4)) }.sorted()
        #expect(paths.count >= 10)
        try await Self.withRouter { router in
            let application = Application(router: router)
            try await application.test(.router) { client in
                for path in paths {
                    let listed = spec.operations["GET \(path)"]?.statuses ?? []
                    let response = try await client.execute(uri: path, method: .get)
                    #expect(listed.contains(response.status.code), "GET \(path) answered \(response.status.code); the spec lists \(listed.sorted())")
                    #expect(response.headers[.requestID] != nil, "GET \(path) has no X-Request-Id")
                    // Every path also answers with a trailing slash, as the spec's description says.
                    if path != "/" {
                        let slashed = try await client.execute(uri: path + "/", method: .get)
                        #expect(slashed.status == response.status, "GET \(path)/ answered \(slashed.status.code), not \(response.status.code)")
                    }
                }
            }
        }
    }

    @Test func theOrderingEnumsAreTheValuesTheStoreAccepts() throws {
        let spec = try Self.spec()
        // And the empty value, which is the parameter left out, as for every parameter.
        func expected(_ names: [String]) -> Set<String> { Set(names + names.map { "-" + $0 } + [""]) }
        let lists: [(String, [String])] = [
            ("GET /films", ListOrdering.films.fields), ("GET /products", ListOrdering.products.fields),
            ("GET /categories", ListOrdering.categories.fields), ("GET /imports", ListOrdering.imports.fields),
        ]
        for (operation, names) in lists {
            let documented = spec.operations[operation]?.orderings
            #expect(documented.map(Set.init) == expected(names), "\(operation): ordering enum \(documented ?? []) in openapi.yaml")
        }
    }

    @Test func thePageSizeBoundsAreTheStores() throws {
        let pageSize = try Self.spec().pageSize
        #expect(pageSize.minimum == 1)
        #expect(pageSize.maximum == PageRequest.maximumPageSize)
        #expect(pageSize.defaultValue == PageRequest.defaultPageSize)
    }
}

/// The routes over `store`, with both feeds disabled, no bootstrap secret (unless `configure` sets one) and nothing run
/// in the background.
func feedlessRouter(
    _ store: any CatalogStore, logger: Logger, configure: (inout ServiceConfiguration) -> Void = { _ in }
) -> Router<BasicRequestContext> {
    let importer = Importer(
        store: store, locations: FeedLocations(films: "", products: ""), client: UpstreamClient(logger: logger), logger: logger)
    let components = ServiceComponents(
        store: store, importer: importer, metrics: RequestMetrics(), notifier: ChangeNotifier(),
        tokenUsage: TokenUsageService(store: store, logger: logger))
    var configuration = ServiceConfiguration()
    configuration.feeds = FeedLocations(films: "", products: "")
    configuration.importInterval = nil
    configure(&configuration)
    return buildRouter(components, configuration: configuration)
}
