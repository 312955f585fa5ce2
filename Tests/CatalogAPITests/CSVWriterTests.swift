import Testing

@testable import CatalogAPI

/// RFC 4180 fields as `CSVWriter` writes them: looked at eight bytes at a time for a byte that needs quotes, its quotes
/// doubled in runs, and integers written from the stack.
@Suite("CSV fields")
struct CSVWriterTests {
    @Test func aFieldIsQuotedWhenAnyOfItsBytesNeedsItWhereverItIs() {
        func reference(_ text: [UInt8]) -> [UInt8] {
            let special: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "\""), 0x0D, 0x0A]
            guard text.contains(where: special.contains) else { return text }
            return [UInt8(ascii: "\"")] + text.flatMap { $0 == UInt8(ascii: "\"") ? [$0, $0] : [$0] } + [UInt8(ascii: "\"")]
        }
        let alphabet: [UInt8] = [UInt8(ascii: "a"), UInt8(ascii: " "), UInt8(ascii: ","), UInt8(ascii: "\""), 0x0D, 0x0A, 0xC3, 0xA9, 0x2B, 0x4C]
        var random = SystemRandomNumberGenerator()
        for length in 0...40 {
            for _ in 0..<50 {
                // Mostly plain bytes, so that most eight-byte words need nothing and a special byte falls anywhere.
                let text = (0..<length).map { _ in
                    Int.random(in: 0..<4, using: &random) == 0 ? alphabet.randomElement(using: &random) ?? 0 : UInt8(ascii: "x")
                }
                var csv = CSVWriter()
                text.withUnsafeBufferPointer { csv.field($0) }
                csv.field("next")
                #expect(csv.bytes == reference(text) + Array(",next".utf8), "\(text)")
            }
        }
    }

    @Test func integersAreWrittenInDecimal() {
        var csv = CSVWriter()
        for number: Int64 in [0, 7, -1, 42, 1_000_000, .max, .min] { csv.field(number) }
        csv.field(UInt64.max)
        csv.endRow()
        #expect(
            String(decoding: csv.bytes, as: UTF8.self)
                == "0,7,-1,42,1000000,9223372036854775807,-9223372036854775808,18446744073709551615\r\n")
    }
}
