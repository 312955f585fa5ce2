import Foundation
import Testing

@testable import CatalogModel

@Suite("JSON parser and writer")
struct JSONTests {
    func parse(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test func numbersKeepTheTextTheProducerWrote() throws {
        let value = try parse(#"{"price": 19.90, "big": 12345678901234567890, "exp": 1e-3}"#)
        #expect(value["price"] == .number("19.90"))
        #expect(value["big"] == .number("12345678901234567890"))
        #expect(value["exp"] == .number("1e-3"))
    }

    @Test func escapesAndSurrogatePairsDecode() throws {
        let value = try parse(#"["a\"b\\c\/d\n", "\u00e9\ud83d\ude00"]"#)
        #expect(value == .array([.string("a\"b\\c/d\n"), .string("é😀")]))
    }

    @Test(arguments: [
        ("[1, 2", "unexpected end of input"),
        ("{\"a\": 1} x", "unexpected data after the document"),
        ("[01]", "expected ',' or ']'"),
        ("\"\u{01}\"", "control character in a string"),
        ("[\"\\ud800\"]", "unpaired surrogate in \\u escape"),
        ("{\"a\" 1}", "expected ':'"),
        ("[tru]", "invalid literal"),
    ])
    func malformedDocumentsAreRejectedWithAReason(text: String, reason: String) {
        let error = #expect(throws: JSONParseError.self) { try parse(text) }
        #expect(error?.reason == reason)
    }

    @Test func aRepeatedMemberNameReadsAsItsLastValueAndObjectsCompareAsSets() throws {
        let parsed = try JSONParser.parse(Array(#"{"b": 1, "a": "x", "b": 2}"#.utf8))
        #expect(parsed["b"] == .number("2"))
        #expect(parsed["a"] == .string("x"))
        #expect(parsed["c"] == nil)
        #expect(parsed == (try JSONParser.parse(Array(#"{"a": "x", "b": 2}"#.utf8))))
        #expect(parsed != (try JSONParser.parse(Array(#"{"a": "x", "b": 1}"#.utf8))))
        guard case .object(var members) = parsed else {
            Issue.record("not an object")
            return
        }
        #expect(members.sortedMembers.map(\.name) == ["a", "b"])
        members["b"] = .bool(true)
        #expect(members["b"] == .bool(true))
        var writer = JSONWriter()
        writer.value(.object(members))
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"a":"x","b":true}"#)
    }

    @Test func invalidUTF8IsRejected() {
        let bytes: [UInt8] = [UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")]
        #expect(throws: JSONParseError(offset: 4, reason: "invalid UTF-8 in a string")) { try JSONParser.parse(bytes) }
    }

    @Test func nestingDeeperThanTheLimitIsRejected() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParseError.self) { try parse(deep) }
        let allowed = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try parse(allowed) }
    }

    @Test func theWriterRoundTripsThroughTheParser() throws {
        let strings = ["plain", "quote \" and \\ backslash", "line\nbreak\ttab\r", "control \u{01}\u{1F}", "unicode é 😀 ✓", ""]
        var writer = JSONWriter()
        writer.objectStart()
        for (index, string) in strings.enumerated() {
            writer.key("k\(index)")
            writer.string(string)
        }
        // Written through a cursor into reserved space, text is escaped exactly as `string` escapes it.
        for (index, string) in strings.enumerated() {
            writer.key("cursor\(index)")
            var text = string
            text.withUTF8 { utf8 in
                writer.value(reserving: UnsafeJSONCursor.maximumStringCount(utf8.count)) { $0.string(utf8) }
            }
        }
        let integers: [Int64] = [0, 7, -1, 1_000_000, .max, .min]
        for (index, integer) in integers.enumerated() {
            writer.key("int\(index)")
            writer.value(reserving: UnsafeJSONCursor.maximumIntCount) { $0.int(integer) }
        }
        writer.key("empty")
        writer.value(reserving: 4) { $0.nonEmptyString(UnsafeBufferPointer(start: nil, count: 0)) }
        writer.key("price")
        writer.number(literal: "19.90")
        writer.key("none")
        writer.null()
        writer.objectEnd()
        let value = try JSONParser.parse(writer.bytes)
        for (index, string) in strings.enumerated() {
            #expect(value["k\(index)"] == .string(string))
            #expect(value["cursor\(index)"] == .string(string))
        }
        for (index, integer) in integers.enumerated() {
            #expect(value["int\(index)"] == .number(String(integer)))
        }
        #expect(value["empty"] == .null)
        #expect(value["price"] == .number("19.90"))
        #expect(value["none"] == .null)
    }

    /// Text escaped eight bytes at a time where none needs it, and byte by byte around one that does: the same bytes as
    /// escaping each byte in turn, for text of every length up to 40 with quotes, backslashes, control characters,
    /// non-ASCII and invalid bytes at every offset.
    @Test func escapingLooksAtEightBytesAtATimeAndWritesWhatEachByteNeeds() throws {
        func reference(_ bytes: [UInt8]) -> [UInt8] {
            var escaped: [UInt8] = [UInt8(ascii: "\"")]
            for byte in String(decoding: bytes, as: UTF8.self).utf8 {
                switch byte {
                case UInt8(ascii: "\""): escaped += Array(#"\""#.utf8)
                case UInt8(ascii: "\\"): escaped += Array(#"\\"#.utf8)
                case 0x0A: escaped += Array(#"\n"#.utf8)
                case 0x0D: escaped += Array(#"\r"#.utf8)
                case 0x09: escaped += Array(#"\t"#.utf8)
                case ..<0x20: escaped += Array(String(format: "\\u%04x", byte).utf8)
                default: escaped.append(byte)
                }
            }
            return escaped + [UInt8(ascii: "\"")]
        }
        let alphabet: [[UInt8]] = [
            Array("a".utf8), Array("Z".utf8), Array(" ".utf8), Array("\"".utf8), Array("\\".utf8), [0x00], [0x1F], [0x0A], [0x7F],
            Array("é".utf8), Array("😀".utf8), [0xFF], [0xC3],
        ]
        var random = SystemRandomNumberGenerator()
        for length in 0...40 {
            for _ in 0..<50 {
                var bytes: [UInt8] = []
                while bytes.count < length { bytes += alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
                var writer = JSONWriter()
                bytes.withUnsafeBufferPointer { text in
                    writer.value(reserving: UnsafeJSONCursor.maximumStringCount(text.count)) { $0.string(text) }
                }
                #expect(writer.bytes == reference(bytes), "\(bytes)")
            }
        }
    }

    /// Text a store holds that is not UTF-8 (another program wrote it) is served repaired, never as invalid JSON.
    @Test func bytesThatAreNotUTF8AreWrittenReplaced() throws {
        let bytes: [UInt8] = [UInt8(ascii: "a"), 0xFF, UInt8(ascii: "\""), 0xC3, UInt8(ascii: "b"), 0x00]
        var writer = JSONWriter()
        bytes.withUnsafeBufferPointer { text in
            writer.value(reserving: UnsafeJSONCursor.maximumStringCount(text.count)) { $0.string(text) }
        }
        #expect(try JSONParser.parse(writer.bytes) == .string("a\u{FFFD}\"\u{FFFD}b\u{00}"))
        // Text that is UTF-8 is written as it is, whatever its length in bytes.
        var valid = JSONWriter()
        Array("é€😀 \"x\"".utf8).withUnsafeBufferPointer { text in
            valid.value(reserving: UnsafeJSONCursor.maximumStringCount(text.count)) { $0.string(text) }
        }
        #expect(try JSONParser.parse(valid.bytes) == .string("é€😀 \"x\""))
    }

    @Test func theWriterKeepsKeysInTheOrderWritten() {
        var writer = JSONWriter()
        writer.objectStart()
        writer.key("z")
        writer.int(1)
        writer.key("a")
        writer.bool(true)
        writer.objectEnd()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"z":1,"a":true}"#)
    }
}
