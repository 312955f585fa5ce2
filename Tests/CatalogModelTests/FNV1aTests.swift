import Testing

@testable import CatalogModel

@Suite("FNV-1a")
struct FNV1aTests {
    @Test func theHashIsTheReferenceOne() {
        // The published 64-bit FNV-1a values: ETags written by earlier releases stay valid.
        let empty = FNV1a().value
        #expect(empty == 0xcbf2_9ce4_8422_2325)
        var hash = FNV1a()
        hash.combine("foobar".utf8)
        let foobar = hash.value
        #expect(foobar == 0x8594_4171_f739_67e8)
    }

    @Test func feedingInPartsEqualsFeedingAtOnce() {
        var parts = FNV1a()
        parts.combine("films:".utf8)
        parts.combine(Array("12".utf8))
        var whole = FNV1a()
        whole.combine("films:12".utf8)
        let (split, joined) = (parts.value, whole.value)
        #expect(split == joined)
    }
}
