import CatalogModel
import Crypto
import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How patient and how trusting the upstream client is. Every value has a default that works against public APIs.
public struct UpstreamPolicy: Sendable {
    /// Longest wait for one response.
    public var requestTimeout: Duration = .seconds(30)
    /// Longest a whole run (all pages, all retries) may take.
    public var runTimeout: Duration = .seconds(600)
    /// Tries per page, the first included, on connection errors, 429 and 5xx.
    public var maximumAttempts = 4
    /// First retry delay; doubled each time, with up to 50% jitter, capped by `maximumBackoff`.
    public var initialBackoff: Duration = .milliseconds(500)
    public var maximumBackoff: Duration = .seconds(30)
    /// A JSON document (a page, or a listing as one array) larger than this fails the run. An NDJSON listing, read
    /// line by line, is not capped as a whole: its lines are, by `maximumLineBytes`.
    public var maximumResponseBytes = 256 * 1024 * 1024
    /// Longest line of an NDJSON listing.
    public var maximumLineBytes = NDJSONDecoder.defaultMaximumLineBytes
    /// Largest number of pages one listing may have; guards against a `next` chain that never ends.
    public var maximumPages = 100_000

    public init() {}
}
