import CatalogModel
import CatalogStore

extension Change {
    /// Writes the change as the feed serves it: `{"seq", "entity", "key", "op", "author", "at"}`.
    func write(into writer: inout JSONWriter) {
        writer.objectStart()
        writeMembers(into: &writer)
        writer.objectEnd()
    }

    /// The change's members, for an object that holds more (a webhook's change, with its `data`).
    func writeMembers(into writer: inout JSONWriter) {
        writer.member("seq", seq)
        for (name, value) in [
            ("entity", entity.rawValue), ("key", key), ("op", op.rawValue), ("author", author), ("at", at),
        ] {
            writer.member(name, value)
        }
    }
}
