import CatalogModel

extension ImportReport {
    /// The report as JSON, the `ImportReport` schema of `openapi.yaml` with its fields in that order; `url` is
    /// its address on the service, when there is one (`catalogd import --json` has none).
    public func write(url: String?, into writer: inout JSONWriter) {
        writer.objectStart()
        writer.member("id", id)
        writer.member("source", source.rawValue)
        writer.member("status", status.rawValue)
        writer.member("started_at", startedAt)
        writer.member("finished_at", finishedAt)
        for (name, value) in [
            ("fetched", fetched), ("inserted", inserted), ("updated", updated), ("unchanged", unchanged),
            ("deleted", deleted), ("rejected", rejected),
        ] {
            writer.member(name, value)
        }
        writer.key("rejections")
        Rejection.write(rejections, into: &writer)
        writer.member("error", error)
        writer.member("started_by", startedBy)
        if let url {
            writer.member("url", url)
        }
        writer.objectEnd()
    }
}
