import CatalogImport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import CatalogAPI
@testable import CatalogStore

/// The operations of `openapi.yaml`, read from its `paths:` section by indentation (no YAML dependency).
///
/// The file is written in a fixed layout: paths at two spaces, operations at four, `responses:` at six and
/// status keys (`'200':`) at eight.
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

    init(_ text: String) {
        var section = ""
        var path: String?
        var operation: String?
        var inResponses = false
        var awaitingOrderingEnum = false
        var inPageSize = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let indent = line.prefix { $0 == " " }.count
            if indent == 0 {
                section = trimmed
                path = nil
                operation = nil
                continue
            }
            if section == "components:" {
                if indent == 4 { inPageSize = trimmed == "PageSize:" }
                if inPageSize, trimmed.hasPrefix("schema:") {
                    pageSize = (Self.number("minimum", in: trimmed), Self.number("maximum", in: trimmed), Self.number("default", in: trimmed))
                }
                continue
            }
            guard section == "paths:" else { continue }
            if indent == 2, trimmed.hasPrefix("/"), trimmed.hasSuffix(":") {
                path = String(trimmed.dropLast())
                operation = nil
                continue
            }
            if indent == 4 {
                let key = String(trimmed.dropLast())
                inResponses = false
                awaitingOrderingEnum = false
                if let path, trimmed.hasSuffix(":"), Self.methods.contains(key) {
                    operation = "\(key.uppercased()) \(path)"
                    operations[operation!] = Operation()
                } else {
                    operation = nil
                }
                continue
            }
            guard let operation else { continue }
            if indent == 6 { inResponses = trimmed == "responses:" }
            if inResponses, indent == 8, trimmed.hasPrefix("'"), let status = Int(trimmed.dropFirst().prefix(3)) {
                operations[operation]?.statuses.insert(status)
            }
            if trimmed == "- name: ordering" { awaitingOrderingEnum = true }
            if awaitingOrderingEnum, let open = trimmed.range(of: "enum: ["), let close = trimmed[open.upperBound...].firstIndex(of: "]") {
                let list = trimmed[open.upperBound..<close]
                operations[operation]?.orderings = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                awaitingOrderingEnum = false
            }
        }
    }

    /// `maximum: 1000` inside a flow mapping such as `{type: integer, minimum: 1, maximum: 1000}`.
    static func number(_ key: String, in line: String) -> Int? {
        guard let range = line.range(of: "\(key): ") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
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
        SpecOperations(try specText())
    }

    /// A router over an empty store in a fresh directory, with both feeds disabled and writes refused.
    static func withRouter(_ body: (Router<BasicRequestContext>) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogd-openapi-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "catalogd-openapi-tests")
        let store = try CatalogStore(path: directory.appendingPathComponent("catalog.sqlite").path)
        let importer = Importer(
            store: store, locations: FeedLocations(films: "", products: ""), client: UpstreamClient(logger: logger), logger: logger)
        let components = ServiceComponents(store: store, importer: importer, metrics: RequestMetrics(), notifier: ChangeNotifier())
        var configuration = ServiceConfiguration()
        configuration.databasePath = store.path
        configuration.feeds = FeedLocations(films: "", products: "")
        configuration.importInterval = nil
        try await body(buildRouter(components, configuration: configuration))
    }

    @Test func theServedDocumentIsTheRepositorysFileByteForByte() throws {
        let file = Array(try Data(contentsOf: Self.specURL))
        let embedded = Array(OpenAPIDocument.yaml.utf8)
        let firstDifference = zip(file, embedded).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(file.count, embedded.count)
        let identical = file == embedded
        #expect(
            identical,
            "openapi.yaml (\(file.count) bytes) and the served document (\(embedded.count) bytes) differ from byte \(firstDifference): run scripts/embed-openapi"
        )
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
        func expected(_ names: [String]) -> Set<String> { Set(names + names.map { "-" + $0 }) }
        let lists: [(String, [String])] = [
            ("GET /films", CatalogStore.orderingNames.films), ("GET /products", CatalogStore.orderingNames.products),
            ("GET /categories", CatalogStore.orderingNames.categories), ("GET /imports", CatalogStore.importListing.orderingNames),
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
