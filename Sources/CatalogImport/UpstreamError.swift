import CatalogModel
import Crypto
import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a page could not be fetched: names the URL, the page and the cause.
public struct UpstreamError: Error, Sendable, CustomStringConvertible {
    public var url: String
    public var page: Int
    public var cause: String

    public var description: String { "page \(page) (\(url)): \(cause)" }
}
