import ServiceLifecycle

extension CatalogStore {
    /// Keeps the store open until graceful shutdown, then closes it: added to a service group before the
    /// services that use it, it closes after the last of them has stopped.
    public func run() async throws {
        try? await gracefulShutdown()
        try await close()
    }

    /// Runs `body` while the store's connections run in a child task, and ends them when `body` returns or
    /// throws: the connections live exactly as long as the structure that uses them.
    public func withConnections<Result>(_ body: () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.runConnections() }
            defer { group.cancelAll() }
            return try await body()
        }
    }
}
