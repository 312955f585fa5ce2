import CatalogModel
import CatalogStore
import Hummingbird
import Logging

/// What every write endpoint needs: its token checked first (before the body is read), the body limit, and waking
/// the change feed after a commit.
struct WriteSupport: Sendable {
    let authority: TokenAuthority
    let maximumBodyBytes: Int
    let notifier: ChangeNotifier
    let store: any CatalogStore

    /// The token of the request, when it holds `scope` (401 or 403 otherwise); its `author` names the changes it makes,
    /// and the log says who is writing.
    func authorize(_ request: Request, _ scope: TokenScope, logger: Logger) async throws -> APIToken {
        let token = try await authority.authorize(request, scope)
        logger.info(
            "\(request.method) \(request.uri.path) by \(token.author)", metadata: ["token.name": "\(token.name)", "token.scope": "\(scope.rawValue)"])
        return token
    }

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

    /// After a commit: clients of the change feed hear of it now rather than at the store's next commit check.
    func committed() async throws {
        await notifier.publish(try await store.versions().lastSeq)
    }

    /// A validation failure of the one record in a body.
    private static func invalid(_ error: RecordError) -> Problem {
        Problem(.unprocessableContent, type: "invalid-record", detail: error.reason)
    }

    /// `{"inserted", "updated", "unchanged", "rejected", "rejections"}`.
    static func batchReport(_ counts: WriteCounts, rejections: [Rejection]) -> [UInt8] {
        Representations.single { writer in
            writer.objectStart()
            for (name, value) in [
                ("inserted", counts.inserted), ("updated", counts.updated), ("unchanged", counts.unchanged), ("rejected", rejections.count),
            ] {
                writer.member(name, value)
            }
            writer.key("rejections")
            Rejection.write(rejections, into: &writer)
            writer.objectEnd()
        }
    }

    /// A PUT of one record: the body validated as a `Record` whose key field matches the path's (or is taken
    /// from it), written by `write`, and answered with the row as stored: 201 with `Location` when it is new.
    func put<Record: FeedRecord, Row>(
        _ request: Request, _: Record.Type, keyField: String, pathKey: JSONValue, representations: Representations,
        write: (Record) async throws -> WriteCounts, reread: () async throws -> Row?, gone: String,
        render: (Representations) -> (Row, inout JSONWriter) -> Void, location: String
    ) async throws -> Response {
        let json = try await objectBody(request, keyField: keyField, pathKey: pathKey)
        let record: Record
        do {
            record = try Record(json: json)
        } catch {
            throw Self.invalid(error)
        }
        let counts = try await write(record)
        try await committed()
        guard let row = try await reread() else { throw Problem.notFound(gone) }
        let body = Representations.single { render(representations)(row, &$0) }
        return counts.inserted > 0
            ? JSONResponder.json(body, status: .created, headers: [.location: location])
            : JSONResponder.json(body)
    }

    /// A DELETE of one row: 204 once `remove` committed, 404 with `missing` when there was no such row.
    func delete(missing: String, _ remove: () async throws -> Bool) async throws -> Response {
        guard try await remove() else { throw Problem.notFound(missing) }
        try await committed()
        return Response(status: .noContent)
    }
}
