import CatalogModel
import Logging

extension ImportReport {
    /// The report's figures as swift-log metadata with dotted keys, for log collectors to filter on.
    /// Counts are `.stringConvertible` integers, so a JSON log handler can write them as numbers.
    public var logMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = [
            "import.id": .stringConvertible(id), "import.source": "\(source.rawValue)", "import.status": "\(status.rawValue)",
            "import.fetched": .stringConvertible(fetched), "import.inserted": .stringConvertible(inserted),
            "import.updated": .stringConvertible(updated), "import.unchanged": .stringConvertible(unchanged),
            "import.deleted": .stringConvertible(deleted), "import.rejected": .stringConvertible(rejected),
        ]
        if let error { metadata["import.error"] = "\(error)" }
        return metadata
    }
}
