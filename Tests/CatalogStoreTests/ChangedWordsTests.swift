import CatalogStore
import Testing

struct ChangedWordsTests {
    @Test func eachWordComesOnceWithEveryRowThatHoldsItInTheOrderTheyCameAndItsRank() {
        let words = ChangedWords(byRow: [
            (7, [("lamp", 0), ("oak", 2)]), (3, [("oak", 1)]), (9, []), (12, [("zinc", 2), ("lamp", 1)]),
        ])
        #expect(words.words.map(\.word) == ["lamp", "oak", "zinc"])
        #expect(words.words.map(\.rows) == [[7, 12], [7, 3], [12]])
        #expect(words.words.map(\.ranks) == [[0, 1], [2, 1], [2]])
    }
}
