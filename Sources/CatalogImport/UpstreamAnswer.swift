import CatalogModel
import Crypto
import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the upstream answered for one page.
public enum UpstreamAnswer: Sendable {
    /// 304: the page is what it was when it had the ETag we sent.
    case notModified
    case body(UpstreamBody)
}
