import HTTPTypes

/// What a client's `Accept-Encoding` says about gzip (RFC 9110, section 12.5.3).
///
/// `gzip` (or its alias `x-gzip`) with a q-value above 0 accepts it; `gzip;q=0` refuses it even when `*`
/// is there; without `gzip`, `*` with a q-value above 0 stands for it. A client that ranks `identity`
/// above gzip gets the plain bytes. Malformed elements are skipped, never an error.
struct AcceptEncoding: Equatable {
    /// The client accepts gzip and does not prefer the plain bytes to it.
    let prefersGzip: Bool

    init(_ fields: HTTPFields) {
        self.init(fields[values: .acceptEncoding])
    }

    init(_ lines: [String]) {
        var gzip: Double?
        var identity: Double?
        var any: Double?
        for line in lines {
            for element in line.split(separator: ",") {
                guard let (coding, quality) = Self.parse(element) else { continue }
                // The first mention of a coding counts, as for any list where a repeat is an error.
                switch coding {
                case "gzip", "x-gzip": gzip = gzip ?? quality
                case "identity": identity = identity ?? quality
                case "*": any = any ?? quality
                default: break
                }
            }
        }
        let gzipQuality = gzip ?? any ?? 0
        prefersGzip = gzipQuality > 0 && gzipQuality >= (identity ?? 0)
    }

    /// `coding[;q=value]` as the lower-cased coding and its quality (1 when absent); nil when malformed.
    private static func parse(_ element: Substring) -> (String, Double)? {
        let parts = element.split(separator: ";", omittingEmptySubsequences: false)
        guard let first = parts.first else { return nil }
        let coding = first.trimmingWhitespace().lowercased()
        guard !coding.isEmpty else { return nil }
        var quality = 1.0
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "q" else { continue }
            // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ); anything else makes the element void.
            let text = pair[1].trimmingWhitespace()
            guard text.utf8.count <= 5, text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let value = Double(text), (0...1).contains(value)
            else { return nil }
            quality = value
        }
        return (coding, quality)
    }
}

extension Substring {
    /// Without the spaces and tabs (HTTP's optional whitespace) at either end.
    fileprivate func trimmingWhitespace() -> Substring {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        var text = self
        while let first = text.first, isSpace(first) { text = text.dropFirst() }
        while let last = text.last, isSpace(last) { text = text.dropLast() }
        return text
    }
}
