import CatalogModel
import CatalogStore
import Hummingbird

/// What every write endpoint needs once its token has been checked (`BearerTokenMiddleware`): the body
/// limit, and waking the change feed after a commit.
struct WriteSupport: Sendable {
    /// History author of writes through the API.
    static let author = "api"

    let maximumBodyBytes: Int
    let notifier: ChangeNotifier
    let store: any CatalogStore

    /// Reads the body (413 past the limit).
    func body(_ request: Request) async throws -> [UInt8] {
        try await BodyReader.collect(request, limit: maximumBodyBytes)
    }

    /// A JSON object body whose key field, when present, must match the key in the path; when absent, the path's key is used.
    func objectBody(_ request: Request, keyField: String, pathKey: JSONValue) async throws -> JSONValue {
        let body = try await body(request)
        guard case .object(var members) = try Self.parse(body) else {
            throw Problem(.badRequest, type: "malformed-body", detail: "the body must be a JSON object")
        }
        if let given = members[keyField], given != pathKey {
            throw Problem.badParameter(keyField, "\(keyField) in the body does not match the one in the path")
        }
        members[keyField] = pathKey
        return .object(members)
    }

    static func parse(_ body: [UInt8]) throws(Problem) -> JSONValue {
        do {
            return try JSONParser.parse(body)
        } catch {
            throw Problem(.badRequest, type: "malformed-body", detail: "the body is not JSON: \(error)")
        }
    }

    /// After a commit: clients of the change feed hear of it now rather than at the next poll.
    func committed() async throws {
        await notifier.publish(try await store.versions().lastSeq)
    }

    /// A validation failure of the one record in a body.
    static func invalid(_ error: RecordError) -> Problem {
        Problem(.unprocessableContent, type: "invalid-record", detail: error.reason)
    }

    /// `{"inserted", "updated", "unchanged", "rejected", "rejections"}`.
    static func batchReport(_ counts: WriteCounts, rejections: [Rejection]) -> [UInt8] {
        Representations.single { writer in
            writer.objectStart()
            for (name, value) in [
                ("inserted", counts.inserted), ("updated", counts.updated), ("unchanged", counts.unchanged), ("rejected", rejections.count),
            ] {
                writer.key(name)
                writer.int(value)
            }
            writer.key("rejections")
            Rejection.write(rejections, into: &writer)
            writer.objectEnd()
        }
    }

    /// 201 with `Location` for a new row, 200 otherwise, with the stored row as the body.
    static func upserted(_ counts: WriteCounts, location: String, body: [UInt8]) -> Response {
        counts.inserted > 0
            ? JSONResponder.json(body, status: .created, headers: [.location: location])
            : JSONResponder.json(body)
    }
}
