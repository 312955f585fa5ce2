/// Collects the valid records of a listing or batch by key: a later record with the same key
/// replaces the earlier one, and the earlier one is reported.
public struct KeyedCollector<Record> {
    public private(set) var records: [Record] = []
    /// The listing position of each record in `records`.
    private var indexes: [Int] = []
    private var slots: [String: (slot: Int, index: Int)] = [:]

    public init() {}

    /// Each record with its position in the listing.
    public var indexedRecords: [(index: Int, record: Record)] {
        Array(zip(indexes, records)).map { (index: $0.0, record: $0.1) }
    }

    /// Adds the record found at `index`; returns the rejection of the record it replaces, if any.
    public mutating func add(_ record: Record, key: String, index: Int) -> Rejection? {
        guard let earlier = slots[key] else {
            slots[key] = (records.count, index)
            records.append(record)
            indexes.append(index)
            return nil
        }
        records[earlier.slot] = record
        indexes[earlier.slot] = index
        slots[key] = (earlier.slot, index)
        return Rejection(index: earlier.index, key: key, reason: "duplicate key: replaced by the record at index \(index)")
    }
}

extension KeyedCollector where Record: FeedRecord {
    /// Adds the record found at `index` under its own key; returns the rejection of the record it replaces, if any.
    public mutating func add(_ record: Record, index: Int) -> Rejection? {
        add(record, key: record.key, index: index)
    }
}
