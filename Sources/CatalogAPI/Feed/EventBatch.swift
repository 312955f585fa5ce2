import CatalogModel
import CatalogStore
import NIOCore

/// One slice of the history rendered as Server-Sent Events, with what the stream needs to know of the slice.
struct EventBatch {
    /// The events, or nil when the slice held no change.
    let events: ByteBuffer?
    let lastChangeSeq: Int64?
    let pending: Int
    let lastSeq: Int64

    init(_ slice: ChangeSlice) {
        lastChangeSeq = slice.changes.last?.seq
        pending = slice.pending
        lastSeq = slice.lastSeq
        guard !slice.changes.isEmpty else {
            events = nil
            return
        }
        var events = ByteBuffer()
        events.reserveCapacity(slice.changes.count * 192)
        for change in slice.changes {
            var json = JSONWriter(capacity: 160)
            change.write(into: &json)
            events.writeString("id: \(change.seq)\nevent: change\ndata: ")
            events.writeBytes(json.bytes)
            events.writeString("\n\n")
        }
        self.events = events
    }
}
