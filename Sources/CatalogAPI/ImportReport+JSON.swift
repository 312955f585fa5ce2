import CatalogModel

extension ImportReport {
    /// The report as JSON, the `ImportReport` schema of `openapi.yaml` with its fields in that order; `url` is
    /// its address on the service, when there is one (`catalogd import --json` has none).
    public func write(url: String?, into writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("id")
        writer.int(id)
        writer.key("source")
        writer.string(source.rawValue)
        writer.key("status")
        writer.string(status.rawValue)
        writer.key("started_at")
        writer.string(startedAt)
        writer.key("finished_at")
        writer.string(finishedAt)
        for (name, value) in [
            ("fetched", fetched), ("inserted", inserted), ("updated", updated), ("unchanged", unchanged),
            ("deleted", deleted), ("rejected", rejected),
        ] {
            writer.key(name)
            writer.int(value)
        }
        writer.key("rejections")
        Rejection.write(rejections, into: &writer)
        writer.key("error")
        writer.string(error)
        writer.key("started_by")
        writer.string(startedBy)
        if let url {
            writer.key("url")
            writer.string(url)
        }
        writer.objectEnd()
    }
}
