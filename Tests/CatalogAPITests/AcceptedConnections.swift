import Synchronization

/// How many connections a test's server accepted (`StoreOutageTests.silentServer`).
final class AcceptedConnections: Sendable {
    private let accepted = Atomic(0)

    func add() {
        accepted.add(1, ordering: .relaxed)
    }

    var count: Int { accepted.load(ordering: .relaxed) }
}
