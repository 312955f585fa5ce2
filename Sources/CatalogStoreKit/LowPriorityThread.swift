import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A thread of its own for long work beside the service's requests (an export's reads), at a lower scheduling priority
/// than theirs (`niceness`): on a busy host the kernel runs a request's thread as soon as it is ready, and the work takes
/// the time the requests leave. Jobs run one at a time, in the order they come; `finish()` ends the thread once the
/// jobs before it have run.
package final class LowPriorityThread: Sendable {
    /// The niceness the thread runs at: 10 of the 19 there are, as `nice` gives a command by default.
    package static let niceness: Int32 = 10

    private let jobs = Mutex<(queue: [@Sendable () -> Void], finished: Bool)>(([], false))
    private let ready = DispatchSemaphore(value: 0)

    /// Starts the thread, which holds the value until `finish()`.
    package init(name: String) {
        let thread = Thread { self.runJobs() }
        thread.name = name
        thread.start()
    }

    private func runJobs() {
        Self.lowerPriority()
        while true {
            ready.wait()
            let next = jobs.withLock { jobs -> (@Sendable () -> Void)? in
                jobs.queue.isEmpty ? nil : jobs.queue.removeFirst()
            }
            // A signal without a job: `finish()` said the thread is done.
            guard let next else { return }
            next()
        }
    }

    /// Runs `work` on the thread, once the jobs before it have run.
    package func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = jobs.withLock { jobs in
                guard !jobs.finished else { return false }
                jobs.queue.append { continuation.resume(with: Result { try work() }) }
                return true
            }
            guard accepted else { return continuation.resume(throwing: CancellationError()) }
            ready.signal()
        }
    }

    /// Ends the thread after the jobs already given; later ones are refused.
    package func finish() {
        let first = jobs.withLock { jobs in
            defer { jobs.finished = true }
            return !jobs.finished
        }
        if first { ready.signal() }
    }

    /// Lowers the calling thread's priority alone: on Linux the niceness is each thread's own (the process's, in POSIX),
    /// and 0 names the calling one.
    private static func lowerPriority() {
        #if os(Linux)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
