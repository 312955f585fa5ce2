/// A value in the store that the code cannot read back (written by something else, or damaged): an error,
/// never silently taken as some default.
public struct UnreadableStoredValue: Error, Sendable, Equatable, CustomStringConvertible {
    public var column: String
    public var value: String

    public var description: String { "the store holds '\(value)' in \(column), which this version of catalogd cannot read" }

    public init(column: String, value: String) {
        self.column = column
        self.value = value
    }
}
