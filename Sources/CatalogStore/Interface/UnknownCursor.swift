/// A `cursor` that names no page of this listing: forged, damaged, or from another ordering.
///
/// A cursor is opaque, so the client cannot have got its syntax wrong; like Django REST Framework's cursor
/// pagination, the service answers that the page does not exist (404) rather than that the request is malformed.
public struct UnknownCursor: Error, Sendable, Equatable {
    public var detail: String

    public init(detail: String) {
        self.detail = detail
    }
}
