import Synchronization
import Testing

@testable import PostgresStore

@Suite("Checks shared by the callers that arrive together")
struct SharedCheckTests {
    final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> Int {
            value.withLock {
                $0 += 1; return $0
            }
        }
        var current: Int { value.withLock { $0 } }
    }

    /// Each check answers how many checks had started when it started; a caller notes how many had started
    /// before it asked. A check that began after the caller asked answers more than that.
    @Test func everyCallerGetsACheckThatStartedAfterItAskedAndABurstSharesThem() async throws {
        let started = Counter()
        let shared = SharedCheck<Int>()
        let check: @Sendable () async throws -> Int = {
            let number = started.next()
            try await Task.sleep(for: .milliseconds(20))
            return number
        }
        let callers = 200
        let fresh = try await withThrowingTaskGroup(of: Bool.self) { group in
            for caller in 0..<callers {
                group.addTask {
                    try await Task.sleep(for: .milliseconds(caller % 50))
                    let before = started.current
                    return try await shared.value(check) > before
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(fresh.count == callers)
        #expect(fresh.allSatisfy { $0 })
        let checks = started.current
        #expect(checks < callers / 4, "\(checks) checks for \(callers) callers")
    }

    @Test func aFailedCheckFailsItsRoundAndTheNextOneRunsAgain() async throws {
        struct Refused: Error {}
        let shared = SharedCheck<Int>()
        await #expect(throws: Refused.self) { _ = try await shared.value { throw Refused() } }
        #expect(try await shared.value { 7 } == 7)
    }
}
