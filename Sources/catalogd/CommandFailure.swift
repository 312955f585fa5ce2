/// What a command could not do (no token of that name, no webhook of that id), printed as `Error: <description>` with
/// exit code 1, without the usage text a ValidationError adds.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
}
