import Prometheus
import Synchronization

/// The counter and histogram of each (method, route, status), found once: the registry's own lookup
/// assembles names and label strings on every call, and this runs for every request.
final class RequestInstruments: Sendable {
    struct Key: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    private let known = Mutex<[Key: (Counter, DurationHistogram)]>([:])

    func lookup(_ key: Key, make: () -> (Counter, DurationHistogram)) -> (Counter, DurationHistogram) {
        if let found = known.withLock({ $0[key] }) { return found }
        let made = make()
        return known.withLock { known in
            if let found = known[key] { return found }
            known[key] = made
            return made
        }
    }
}
