import CatalogStore
import Testing

struct ChangedWordsTests {
    @Test func eachWordComesOnceWithEveryRowThatHoldsItInTheOrderTheyCame() {
        let words = ChangedWords(byRow: [(7, ["lamp", "oak"]), (3, ["oak"]), (9, []), (12, ["zinc", "lamp"])])
        #expect(words.words.map(\.word) == ["lamp", "oak", "zinc"])
        #expect(words.words.map(\.rows) == [[7, 12], [7, 3], [12]])
    }
}
