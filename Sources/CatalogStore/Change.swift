/// One recorded change: a row of `entity` with `key` was upserted or deleted by `author`.
public struct Change: Sendable, Equatable {
    /// The kind of row a change is about; its raw value is the `entity` the change feed shows.
    public enum Entity: String, Sendable, CaseIterable {
        case film
        case product
    }

    /// What happened to the row; its raw value is the `op` the change feed shows.
    public enum Operation: String, Sendable, CaseIterable {
        case upsert
        case delete
    }

    public var seq: Int64
    public var entity: Entity
    public var key: String
    public var op: Operation
    public var author: String
    public var at: String

    public init(seq: Int64, entity: Entity, key: String, op: Operation, author: String, at: String) {
        self.seq = seq
        self.entity = entity
        self.key = key
        self.op = op
        self.author = author
        self.at = at
    }

    /// A change as an engine stores it, its entity and operation as text; a text this build does not know is an
    /// `UnreadableStoredValue`.
    public init(seq: Int64, storedEntity: String, key: String, storedOperation: String, author: String, at: String) throws {
        guard let entity = Entity(rawValue: storedEntity) else { throw UnreadableStoredValue(column: "changes.entity", value: storedEntity) }
        guard let operation = Operation(rawValue: storedOperation) else {
            throw UnreadableStoredValue(column: "changes.op", value: storedOperation)
        }
        self.init(seq: seq, entity: entity, key: key, op: operation, author: author, at: at)
    }
}

extension Change.Entity {
    /// The version family a write to this kind of row moves.
    public var family: ResourceFamily {
        switch self {
        case .film: .films
        case .product: .products
        }
    }
}
