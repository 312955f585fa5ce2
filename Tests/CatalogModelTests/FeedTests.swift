import Testing

@testable import CatalogModel

@Suite("Feed documents")
struct FeedTests {
    @Test func aDummyJSONPageGivesItsProductsAndTotal() throws {
        let body = Array(#"{"products": [{"sku": "A"}, {"sku": "B"}], "total": 10, "skip": 0, "limit": 2}"#.utf8)
        let detected = ProductFeedDocument.detectFormat(body)
        #expect(detected == .dummyJSON)
        let content = try ProductFeedDocument.parse(body)
        #expect(content.records.count == 2)
        #expect(content.total == 10)
        let written = try ProductFeedDocument.parse(Array(#"{"products": [], "total": 215891.0}"#.utf8))
        #expect(written.total == 215891)
        for bad in ["10.5", "1e3", "-1", "99999999999999999999"] {
            #expect(throws: FeedError.self) { try ProductFeedDocument.parse(Array(#"{"products": [], "total": \#(bad)}"#.utf8)) }
        }
    }

    @Test func aPlainArrayIsOneWholeListing() throws {
        let body = Array(#"[{"sku": "A"}, {"sku": "B"}, {"sku": "C"}]"#.utf8)
        let detected = ProductFeedDocument.detectFormat(body)
        #expect(detected == .array)
        let content = try ProductFeedDocument.parse(body)
        #expect(content.records.count == 3)
        #expect(content.total == nil)
    }

    @Test func ndjsonIsDetectedAndABadLineIsOneRejectedRecord() throws {
        let body = Array("{\"sku\": \"A\"}\nnot json\n\r\n{\"sku\": \"B\"}\n".utf8)
        let detected = ProductFeedDocument.detectFormat(body)
        #expect(detected == .ndjson)
        let content = try ProductFeedDocument.parse(body)
        #expect(content.records.count == 3)
        let failures = content.records.filter { if case .failure = $0 { true } else { false } }.count
        #expect(failures == 1)
    }

    @Test func anNDJSONBodyCutInItsLastLineFailsWhole() {
        #expect(throws: FeedError.self) { try ProductFeedDocument.parse(Array("{\"sku\": \"A\"}\n{\"sku\": \"B".utf8), format: .ndjson) }
    }

    @Test func ndjsonSplitAcrossChunksDecodesTheSameRecords() throws {
        let body = Array("{\"sku\": \"A\"}\n{\"sku\": \"B\", \"title\": \"long enough to split\"}\n{\"sku\": \"C\"}".utf8)
        for chunkSize in [1, 3, 7, 64] {
            var decoder = NDJSONDecoder()
            var records: [Result<JSONValue, RecordError>] = []
            var start = 0
            while start < body.count {
                records += try decoder.feed(body[start..<min(start + chunkSize, body.count)])
                start += chunkSize
            }
            records += try decoder.finish()
            let keys = records.compactMap { record -> String? in
                if case .success(let json) = record, case .string(let key)? = json["sku"] { return key }
                return nil
            }
            #expect(keys == ["A", "B", "C"], "chunk size \(chunkSize)")
        }
    }

    @Test func aSWAPIPageGivesItsResultsAndNextLink() throws {
        let page = try SWAPIPage(
            body: Array(#"{"count": 6, "next": "https://swapi.dev/api/films/?page=2", "previous": null, "results": [{}, {}]}"#.utf8))
        #expect(page.results.count == 2)
        #expect(page.next == "https://swapi.dev/api/films/?page=2")
        #expect(page.count == 6)
        #expect(throws: FeedError.self) { try SWAPIPage(body: Array(#"{"count": 6}"#.utf8)) }
    }
}
