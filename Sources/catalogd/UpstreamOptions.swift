import ArgumentParser
import CatalogAPI
import CatalogImport
import CatalogModel
import CatalogStore
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the importer treats the upstream; shared by `serve` and `import`.
struct UpstreamOptions: ParsableArguments {
    @Option(help: "Longest wait for one upstream response, e.g. 30s (CATALOG_UPSTREAM_TIMEOUT; default 30s).") var upstreamTimeout: String?
    @Option(
        help: """
            Largest upstream JSON document, a page or a listing as one array, e.g. 256MiB; an NDJSON listing is read line by line \
            and not limited as a whole (CATALOG_UPSTREAM_MAX_BODY; default 256MiB).
            """)
    var upstreamMaxBody: String?
    @Option(help: "Longest line of an NDJSON listing, e.g. 1MiB (CATALOG_UPSTREAM_MAX_LINE; default 1MiB).") var upstreamMaxLine: String?

    func policy(_ common: CommonOptions) throws -> UpstreamPolicy {
        var policy = UpstreamPolicy()
        policy.requestTimeout =
            try common.source("--upstream-timeout", "CATALOG_UPSTREAM_TIMEOUT", upstreamTimeout).duration(
                default: policy.requestTimeout, allowOff: false) ?? policy.requestTimeout
        policy.maximumResponseBytes = try common.source("--upstream-max-body", "CATALOG_UPSTREAM_MAX_BODY", upstreamMaxBody).byteSize(
            default: policy.maximumResponseBytes)
        policy.maximumLineBytes = try common.source("--upstream-max-line", "CATALOG_UPSTREAM_MAX_LINE", upstreamMaxLine).byteSize(
            default: policy.maximumLineBytes)
        return policy
    }
}
