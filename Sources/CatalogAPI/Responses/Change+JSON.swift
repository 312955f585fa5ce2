import CatalogModel
import CatalogStore

extension Change {
    /// Writes the change as the feed serves it: `{"seq", "entity", "key", "op", "author", "at"}`.
    func write(into writer: inout JSONWriter) {
        writer.objectStart()
        writer.member("seq", seq)
        for (name, value) in [
            ("entity", entity.rawValue), ("key", key), ("op", op.rawValue), ("author", author), ("at", at),
        ] {
            writer.member(name, value)
        }
        writer.objectEnd()
    }
}
