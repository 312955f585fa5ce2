import CatalogModel

extension Rejection {
    /// `[{"index", "key", "reason"}]`, as import and batch reports show rejections.
    static func write(_ rejections: [Rejection], into writer: inout JSONWriter) {
        writer.arrayStart()
        for rejection in rejections {
            writer.objectStart()
            writer.key("index")
            writer.int(rejection.index)
            writer.key("key")
            writer.string(rejection.key)
            writer.key("reason")
            writer.string(rejection.reason)
            writer.objectEnd()
        }
        writer.arrayEnd()
    }
}
