import Testing

@testable import CatalogModel

@Suite("Records and validation")
struct RecordTests {
    func json(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test func pricesAreExactDecimals() throws {
        let price = try Price(parsing: "19.99")
        #expect(price.text == "19.99")
        #expect(price.micros == 19_990_000)
        let small = try Price(parsing: "0.000001")
        #expect(small.micros == 1)
        let whole = try Price(parsing: "1200")
        #expect(whole.micros == 1_200_000_000)
        let padded = try Price(parsing: "000000000000007.50")
        #expect(padded.micros == 7_500_000)
        #expect(padded.text == "7.50")
        #expect(try Price(parsing: "00.5").text == "0.5")
        #expect(try Price(parsing: "000").text == "0")
        #expect(try Price(parsing: "0.10").text == "0.10")
        // Exponent forms, as JSON writers produce them, are taken when exact and kept in plain form.
        #expect(try Price(parsing: "6.4e-05").text == "0.000064")
        #expect(try Price(parsing: "6.4e-05").micros == 64)
        #expect(try Price(parsing: "1e3").text == "1000")
        #expect(try Price(parsing: "1.25E2").text == "125")
        #expect(try Price(parsing: "1.5e1").text == "15")
        #expect(try Price(parsing: "999999999999.999999").micros == 999_999_999_999_999_999)
    }

    @Test(arguments: [
        ("-1", "price must not be negative, got -1"),
        ("1e", "price must be a plain decimal number such as 19.99, got 1e"),
        ("1.e3", "price must be a plain decimal number such as 19.99, got 1.e3"),
        ("1e-7", "price has more than 6 decimal places: 0.0000001"),
        ("1e400", "price must be a plain decimal number such as 19.99, got 1e400"),
        ("1e12", "price is too large: 1000000000000"),
        ("1.0000001", "price has more than 6 decimal places: 1.0000001"),
        ("abc", "price must be a plain decimal number such as 19.99, got abc"),
        ("1.", "price must be a plain decimal number such as 19.99, got 1."),
        ("9999999999999", "price is too large: 9999999999999"),
        ("1..2", "price must be a plain decimal number such as 19.99, got 1..2"),
        (".5", "price must be a plain decimal number such as 19.99, got .5"),
        ("1.5.", "price must be a plain decimal number such as 19.99, got 1.5."),
        ("", "price must be a plain decimal number such as 19.99, got "),
    ])
    func badPricesAreRejectedWithAReason(text: String, reason: String) {
        #expect(throws: RecordError(reason)) { try Price(parsing: text) }
    }

    @Test(arguments: [
        ("2024-02-29", true), ("2023-02-29", false), ("2020-12-31", true), ("2021-01-01", true), ("2021-13-01", false),
        ("2021-04-31", false), ("1977-05-25", true), ("77-05-25", false), ("2021-1-01", false), ("", false),
    ])
    func calendarDatesAreCheckedByTheGregorianCalendar(text: String, valid: Bool) {
        #expect(CalendarDate.isValid(text) == valid)
    }

    @Test func aSWAPIFilmDecodesWithItsLinks() throws {
        let film = try Film(
            json: try json(
                #"{"title": "A New Hope", "episode_id": 4, "opening_crawl": "It is a period", "director": "George Lucas", "producer": "Gary Kurtz", "release_date": "1977-05-25", "characters": ["https://swapi.dev/api/people/1/", "https://swapi.dev/api/people/2"], "planets": [], "url": "https://swapi.dev/api/films/1/"}"#
            ))
        #expect(film.episodeID == 4)
        #expect(film.links(.characters) == ["https://swapi.dev/api/people/1/", "https://swapi.dev/api/people/2"])
        #expect(film.links(.species) == [])
        #expect(film.sourceURL == "https://swapi.dev/api/films/1/")
    }

    @Test(arguments: [
        (#"{"title": "x", "release_date": "1977-05-25"}"#, "episode_id is missing"),
        (#"{"episode_id": "4", "title": "x", "release_date": "1977-05-25"}"#, "episode_id must be an integer, got string"),
        (#"{"episode_id": 4.5, "title": "x", "release_date": "1977-05-25"}"#, "episode_id must be an integer, got 4.5"),
        (
            #"{"episode_id": 281474976710656, "title": "x", "release_date": "1977-05-25"}"#,
            "episode_id must be at most 281474976710655, got 281474976710656"
        ),
        (#"{"episode_id": 4, "release_date": "1977-05-25"}"#, "title is missing"),
        (#"{"episode_id": 4, "title": "x", "release_date": "1977-02-30"}"#, "release_date must be a calendar date YYYY-MM-DD, got 1977-02-30"),
        (#"{"episode_id": 4, "title": "x", "release_date": "1977-05-25", "planets": [1]}"#, "planets must be an array of strings, found number"),
        (#"[1]"#, "film must be a JSON object, got array"),
    ])
    func aBadFilmIsRejectedNamingTheField(text: String, reason: String) throws {
        let value = try json(text)
        #expect(throws: RecordError(reason)) { try Film(json: value) }
    }

    @Test func aDummyJSONProductDecodesWithItsFieldMapping() throws {
        let product = try Product(
            json: try json(
                #"{"id": 1, "title": "Phone", "description": "d", "category": "smartphones", "brand": "Acme", "price": 549.90, "stock": 94, "sku": "SKU-1", "meta": {"updatedAt": "2024-05-23T08:56:21.618Z"}}"#
            ))
        #expect(product.serialCode == "SKU-1")
        #expect(product.name == "Phone")
        #expect(product.price.text == "549.90")
        #expect(product.updatedAt == "2024-05-23T08:56:21.618Z")
        let plain = try Product(json: try json(#"{"serial_code": "X", "name": "n", "category": "c", "price": "1.5", "updated_at": "t"}"#))
        #expect(plain.serialCode == "X")
        #expect(plain.price.micros == 1_500_000)
        #expect(plain.updatedAt == "t")
        #expect(plain.brand == nil)
        #expect(plain.sourceURL == nil)
        let blanks = try Product(json: try json(#"{"serial_code": "X", "name": "n", "category": "c", "price": 1, "brand": "", "url": ""}"#))
        #expect(blanks.brand == nil, "a feed's empty brand is no brand")
        #expect(blanks.sourceURL == nil)
        #expect(blanks.updatedAt == nil)
    }

    /// JSON Schema's `integer` is any whole number, however written (the API description says `integer`).
    @Test func aWholeNumberWrittenWithAFractionOrAnExponentIsAnInteger() throws {
        for (text, stock) in [("38", 38), ("38.0", 38), ("3.8e1", 38), ("0.0", 0), ("1E2", 100)] {
            let product = try Product(json: try json(#"{"sku": "A", "title": "n", "category": "c", "price": 1, "stock": \#(text)}"#))
            #expect(product.stock == stock, "\(text)")
        }
        for text in ["38.5", "1e400", "1e17"] {
            #expect(throws: RecordError.self, "\(text)") {
                try Product(json: try json(#"{"sku": "A", "title": "n", "category": "c", "price": 1, "stock": \#(text)}"#))
            }
        }
    }

    @Test(arguments: [
        (#"{"title": "n", "category": "c", "price": 1}"#, "serial_code or sku is missing"),
        (#"{"sku": "A", "category": "c", "price": 1}"#, "name or title is missing"),
        (#"{"sku": "A", "title": "n", "price": 1}"#, "category is missing"),
        (#"{"sku": "A", "title": "n", "category": "c"}"#, "price is missing"),
        (#"{"sku": "A", "title": "n", "category": "c", "price": true}"#, "price must be a number, got boolean"),
        (#"{"sku": "A", "title": "n", "category": "c", "price": 1, "stock": -2}"#, "stock must not be negative, got -2"),
        (#"{"sku": "a/b", "title": "n", "category": "c", "price": 1}"#, "serial_code must not contain '/' or control characters"),
        (#"{"sku": "a\u007fb", "title": "n", "category": "c", "price": 1}"#, "serial_code must not contain '/' or control characters"),
        (#"{"sku": "a\nb", "title": "n", "category": "c", "price": 1}"#, "serial_code must not contain '/' or control characters"),
        (#"{"sku": "", "title": "n", "category": "c", "price": 1}"#, "sku must not be empty"),
        (#"{"sku": "A", "title": "n\u0000", "category": "c", "price": 1}"#, "title must not contain U+0000"),
        (#"{"sku": "A", "title": "n", "category": "c", "price": 1, "description": "a\u0000b"}"#, "description must not contain U+0000"),
        (
            #"{"sku": "A", "title": "n", "category": "c", "price": 1, "updated_at": "t", "meta": {"updatedAt": {}}}"#,
            "updatedAt must be a string, got object"
        ),
        (#"{"sku": "A", "title": "n", "category": "c", "price": 1, "meta": [null]}"#, "meta must be an object, got array"),
    ])
    func aBadProductIsRejectedNamingTheField(text: String, reason: String) throws {
        let value = try json(text)
        #expect(throws: RecordError(reason)) { try Product(json: value) }
    }

    @Test func aLaterRecordWithTheSameKeyReplacesTheEarlierOne() {
        var collector = KeyedCollector<String>()
        #expect(collector.add("first", key: "A", index: 0) == nil)
        #expect(collector.add("other", key: "B", index: 1) == nil)
        let replaced = collector.add("second", key: "A", index: 2)
        #expect(replaced == Rejection(index: 0, key: "A", reason: "duplicate key: replaced by the record at index 2"))
        #expect(collector.records == ["second", "other"])
    }

    @Test func aBatchIsValidatedInOnePlaceWithTheLastDuplicateWinning() throws {
        let records: [Result<JSONValue, RecordError>] = [
            .success(try json(#"{"sku": "A", "title": "first", "category": "c", "price": 1}"#)),
            .failure(RecordError("not JSON")),
            .success(try json(#"{"sku": "B", "title": "bad", "category": "c", "price": -1}"#)),
            .success(try json(#"{"sku": "A", "title": "second", "category": "c", "price": 2}"#)),
        ]
        let (products, rejections) = Product.collect(records)
        #expect(products.map(\.name) == ["second"])
        #expect(rejections.map(\.index) == [0, 1, 2])
        #expect(rejections.map(\.key) == ["A", nil, "B"])
        #expect(rejections.first?.reason == "duplicate key: replaced by the record at index 3")
    }
}
