import Synchronization

/// How many requests the service has answered, for work that yields to a busy API (`WebhookPacing`).
final class AnsweredRequests: Sendable {
    private let count = Atomic(0)

    func record() {
        count.add(1, ordering: .relaxed)
    }

    var total: Int { count.load(ordering: .relaxed) }
}
