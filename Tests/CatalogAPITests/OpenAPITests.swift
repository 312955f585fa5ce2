import CatalogImport
import CatalogStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import CatalogAPI

@Suite("openapi.yaml")
struct OpenAPITests {
    static let specURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("openapi.yaml")

    /// `(method, path)` of every operation in the spec, read from its `paths:` section by indentation.
    static func specOperations() throws -> Set<String> {
        let text = try String(contentsOf: specURL, encoding: .utf8)
        var operations: Set<String> = []
        var inPaths = false
        var currentPath: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if !line.hasPrefix(" ") && !line.isEmpty { break }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if let path = currentPath, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
                if ["GET", "PUT", "POST", "DELETE", "PATCH"].contains(method) { operations.insert("\(method) \(path)") }
            }
        }
        return operations
    }

    @Test func theServedDocumentIsTheRepositorysFile() throws {
        let file = try String(contentsOf: Self.specURL, encoding: .utf8)
        #expect(OpenAPIDocument.yaml + "\n" == file || OpenAPIDocument.yaml == file, "run scripts/embed-openapi")
    }

    @Test func everyRouteIsInTheSpecAndEveryOperationIsARoute() async throws {
        let harness = WriteHarness()
        defer { try? FileManager.default.removeItem(at: harness.directory) }
        let (_, components) = try await buildApplication(harness.configuration, logger: Logger(label: "catalogd-tests"))
        let router = buildRouter(components, configuration: harness.configuration)
        let routes = Set(
            router.routes.filter { $0.method != .head }.map { route in
                let path = "\(route.path)"
                return "\(route.method) \(path.hasPrefix("/") ? path : "/" + path)"
            })
        let spec = try Self.specOperations()
        #expect(spec.count > 10)
        #expect(routes.subtracting(spec).isEmpty, "routes missing from openapi.yaml: \(routes.subtracting(spec).sorted())")
        #expect(spec.subtracting(routes).isEmpty, "operations in openapi.yaml with no route: \(spec.subtracting(routes).sorted())")
    }

    @Test func everyParameterFreeGETAnswersWithAStatusTheSpecLists() async throws {
        let text = try String(contentsOf: Self.specURL, encoding: .utf8)
        try await WriteHarness().run { client, _ in
            for operation in try Self.specOperations().sorted() where operation.hasPrefix("GET ") && !operation.contains("{") {
                let path = String(operation.dropFirst(4))
                let response = try await client.execute(uri: path, method: .get)
                // The path's block in the spec lists this status as a response key.
                let block = text.components(separatedBy: "\n  \(path):\n").dropFirst().first?.components(separatedBy: "\n  /").first ?? ""
                #expect(block.contains("'\(response.status.code)'"), "\(path) answered \(response.status.code)")
            }
        }
    }
}
