import CatalogModel
import Foundation
import Hummingbird

/// Entity tags for GET responses and the `If-None-Match` check.
///
/// A tag names the resource family's store version and hashes everything else that shapes the bytes (path, query,
/// base URL: its `Subject`), so it changes exactly when the response would.
struct EntityTag {
    let value: String

    /// What a response's bytes depend on besides the version: one subject has one tag per version.
    struct Subject: Hashable, Sendable {
        let family: String
        let hash: UInt64

        init(family: String, request: Request, baseURL: String) {
            // FNV-1a over "family:base:uri", fed part by part rather than built as one string per request.
            var hash = FNV1a()
            for (position, var part) in [family, baseURL, request.uri.string].enumerated() {
                if position > 0 { hash.combine(":".utf8) }
                // Over the contiguous bytes: walking a `String.UTF8View` costs several times as much per byte.
                part.withUTF8 { hash.combine($0) }
            }
            self.family = family
            self.hash = hash.value
        }
    }

    init(version: Int64, subject: Subject) {
        value = "\"\(subject.family)-\(version)-\(String(subject.hash, radix: 16))\""
    }

    init(version: Int64, family: String, request: Request, baseURL: String) {
        self.init(version: version, subject: Subject(family: family, request: request, baseURL: baseURL))
    }

    private init(value: String) {
        self.value = value
    }

    /// The tag of the same bytes sent gzip-compressed: another representation, so another tag (RFC 9110, 8.8.3),
    /// and a client holding one is never told by a 304 that it has the other.
    var gzipped: EntityTag { EntityTag(value: String(decoding: value.utf8.dropLast(), as: UTF8.self) + "-gzip\"") }

    /// This tag, or its gzip form when `gzip` is true.
    func encoded(gzip: Bool) -> EntityTag { gzip ? gzipped : self }

    enum Match {
        case none
        /// `If-None-Match` names this tag: the client has these bytes.
        case exact
        /// `If-None-Match: *`: any current representation matches, once the request is known to have one.
        case any
    }

    /// How `If-None-Match` relates to this tag; weak comparison and lists as RFC 9110 says.
    func match(_ request: Request) -> Match {
        var sawAny = false
        for header in request.headers[values: .ifNoneMatch] {
            for candidate in header.split(separator: ",") {
                var tag = candidate.trimmingCharacters(in: .whitespaces)
                if tag == "*" { sawAny = true }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }
                if tag == value { return .exact }
            }
        }
        return sawAny ? .any : .none
    }
}
