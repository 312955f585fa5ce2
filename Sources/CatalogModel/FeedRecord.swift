/// A record of a feed or a batch: built from JSON with validation, and known by its key.
public protocol FeedRecord: Sendable {
    init(json: JSONValue) throws(RecordError)
    /// The key as the store knows it (`serial_code`, or `episode_id` as text).
    var key: String { get }
    /// The key the JSON gives, if any, to name a record that failed validation.
    static func key(of json: JSONValue) -> String?
}

extension FeedRecord {
    /// The record at `index` of a listing or batch, or the rejection that says why it is not one.
    public static func validate(_ record: Result<JSONValue, RecordError>, at index: Int) -> Result<Self, Rejection> {
        switch record {
        case .failure(let error):
            return .failure(Rejection(index: index, key: nil, reason: error.reason))
        case .success(let json):
            do throws(RecordError) {
                return .success(try Self(json: json))
            } catch {
                return .failure(Rejection(index: index, key: key(of: json), reason: error.reason))
            }
        }
    }

    /// Validates every record of a batch held in memory: the valid ones, the last of each key winning, and
    /// the rejections in listing order.
    public static func collect(_ records: [Result<JSONValue, RecordError>]) -> (records: [Self], rejections: [Rejection]) {
        var collector = KeyedCollector<Self>()
        var rejections: [Rejection] = []
        for (index, record) in records.enumerated() {
            switch validate(record, at: index) {
            case .success(let valid):
                if let replaced = collector.add(valid, index: index) { rejections.append(replaced) }
            case .failure(let rejection):
                rejections.append(rejection)
            }
        }
        return (collector.records, rejections.sorted { $0.index < $1.index })
    }
}
