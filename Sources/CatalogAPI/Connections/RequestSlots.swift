import Synchronization

/// At most `limit` long requests of one kind at once (change-feed followers, exports); the next is refused.
final class RequestSlots: Sendable {
    let limit: Int
    private let taken = Atomic(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// A slot held until the value is released, or nil when every slot is taken.
    ///
    /// A slot is a value whose end frees it, so that a streamed answer's slot is freed even when its body never runs
    /// (the client gone before the answer's head was written).
    func take() -> Slot? {
        var current = taken.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = taken.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return Slot(slots: self) }
            current = original
        }
        return nil
    }

    /// One request's place; freed when the last reference to it goes.
    final class Slot: Sendable {
        private let slots: RequestSlots

        fileprivate init(slots: RequestSlots) {
            self.slots = slots
        }

        deinit {
            slots.taken.subtract(1, ordering: .acquiringAndReleasing)
        }
    }
}
