import CatalogModel
import CatalogStore

extension Change {
    /// Writes the change as the feed serves it: `{"seq", "entity", "key", "op", "author", "at"}`.
    func write(into writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("seq")
        writer.int(seq)
        for (name, value) in [
            ("entity", entity.rawValue), ("key", key), ("op", op.rawValue), ("author", author), ("at", at),
        ] {
            writer.key(name)
            writer.string(value)
        }
        writer.objectEnd()
    }
}
