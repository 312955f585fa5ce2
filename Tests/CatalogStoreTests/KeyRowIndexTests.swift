import CatalogStore
import Testing

/// The index of the rows product keys held: a base brought forward adds the rows of the keys changed since.
@Suite("Key rows")
struct KeyRowIndexTests {
    @Test func anAddedKeyIsFoundBesideItsOlderRowsAndNoEntryIsHeldTwice() {
        let keys = (0..<1_000).map { "P\($0)" }
        let index = KeyRowIndex(keys.enumerated().map { (KeyRowIndex.hash($1), Int64($0)) })
        for (row, key) in keys.enumerated() { #expect(index.rows(of: key) == [Int64(row)]) }
        let added = index.adding([
            (KeyRowIndex.hash("P7"), 1_000), (KeyRowIndex.hash("P7"), 7), (KeyRowIndex.hash("N1"), 1_001), (KeyRowIndex.hash("N1"), 1_001),
        ])
        #expect(added.rows(of: "P7").sorted() == [7, 1_000])
        #expect(added.rows(of: "N1") == [1_001])
        #expect(added.rows(of: "P8") == [8])
        #expect(added.rows(of: "absent").isEmpty)
        #expect(index.rows(of: "N1").isEmpty, "the index it was made from is as it was")
    }
}
