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

extension UnknownCursor {
    /// A cursor that does not read as one this service writes, or whose values are not of its ordering's kinds.
    static let notIssuedHere = UnknownCursor(
        detail: "no page at this cursor: it is not one this service issued; follow the next or previous links")
}
