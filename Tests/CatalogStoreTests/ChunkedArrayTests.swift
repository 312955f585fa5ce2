import Testing

@testable import CatalogStore

/// The per-row columns the frequent words' sets are brought forward in: an array whose copies change apart.
@Suite("Chunked arrays")
struct ChunkedArrayTests {
    @Test func itHoldsWhatAnArrayHoldsAcrossChunksAndGrowth() {
        let chunk = 1 << ChunkedArray<Int64>.chunkShift
        var chunked = ChunkedArray<Int64>(repeating: -1, count: 3)
        var plain = [Int64](repeating: -1, count: 3)
        var generator = SystemRandomNumberGenerator()
        for length in [chunk - 1, chunk, chunk + 1, 3 * chunk + 5] {
            chunked.grow(to: length)
            plain += [Int64](repeating: -1, count: length - plain.count)
            for _ in 0..<2_000 {
                let index = Int.random(in: 0..<length, using: &generator)
                let value = Int64.random(in: 0..<1_000, using: &generator)
                chunked[index] = value
                plain[index] = value
            }
            #expect(chunked.count == plain.count)
            #expect((0..<chunked.count).map { chunked[$0] } == plain)
            var reader = chunked.sequentialReader
            #expect((0..<chunked.count).map { reader.element(at: $0) } == plain)
            #expect(chunked.chunks.map(\.start) == Array(stride(from: 0, to: length, by: chunk)))
            #expect(chunked.chunks.flatMap(\.elements) == plain)
        }
        chunked.grow(to: 10)
        #expect(chunked.count == 3 * chunk + 5, "it never shrinks")
    }

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let chunk = 1 << ChunkedArray<UInt32>.chunkShift
        let original = ChunkedArray<UInt32>(repeating: 7, count: 2 * chunk)
        var copy = original
        copy[chunk + 3] = 9
        copy.grow(to: 2 * chunk + 1)
        #expect(copy[chunk + 3] == 9 && copy[2 * chunk] == 7)
        #expect(original[chunk + 3] == 7 && original.count == 2 * chunk)
    }
}
