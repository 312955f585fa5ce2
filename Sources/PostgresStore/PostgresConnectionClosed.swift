/// A call's connection closed while the call was still waiting for it (the server stopped or restarted, or the store
/// closed its connections): it was given up rather than waited for, as postgres-nio would never answer it.
struct PostgresConnectionClosed: Error, CustomStringConvertible {
    var description: String { "the connection to the database closed during the call" }
}
