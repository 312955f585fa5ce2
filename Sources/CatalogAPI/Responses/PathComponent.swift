/// Percent-encoding of keys placed in a URL path or query.
enum PathComponent {
    /// Percent-encodes everything but RFC 3986's unreserved characters; a key that needs none (the usual case)
    /// is returned as it is, since this runs for every row of every page.
    static func encode(_ text: String) -> String {
        var text = text
        return text.withUTF8 { utf8 in withEncoded(utf8) { String(decoding: $0, as: UTF8.self) } }
    }

    /// Lends `utf8` percent-encoded, itself when it needs nothing encoded.
    static func withEncoded<Result>(_ utf8: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        guard !utf8.allSatisfy(isUnreserved) else { return body(utf8) }
        var encoded: [UInt8] = []
        encoded.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isUnreserved(byte) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hexDigits[Int(byte >> 4)])
                encoded.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return encoded.withUnsafeBufferPointer(body)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
