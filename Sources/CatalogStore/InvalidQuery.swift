/// A query parameter the store cannot accept; the API answers 400 naming it.
public struct InvalidQuery: Error, Sendable, Equatable {
    public var parameter: String
    public var detail: String

    public init(parameter: String, detail: String) {
        self.parameter = parameter
        self.detail = detail
    }
}
