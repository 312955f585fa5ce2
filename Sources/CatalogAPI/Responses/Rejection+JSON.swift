import CatalogModel

extension Rejection {
    /// `[{"index", "key", "reason"}]`, as import and batch reports show rejections.
    static func write(_ rejections: [Rejection], into writer: inout JSONWriter) {
        writer.arrayStart()
        for rejection in rejections {
            writer.objectStart()
            writer.member("index", rejection.index)
            writer.member("key", rejection.key)
            writer.member("reason", rejection.reason)
            writer.objectEnd()
        }
        writer.arrayEnd()
    }
}
