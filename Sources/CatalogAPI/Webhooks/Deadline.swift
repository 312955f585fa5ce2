/// Work that must end within a time: the body's result, or `expired()` thrown once `timeout` has passed, the body then
/// cancelled (for the webhooks' resolutions and attempts).
enum Deadline {
    static func run<T: Sendable>(
        within timeout: Duration, orThrow expired: @escaping @Sendable () -> any Error, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw expired()
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}
