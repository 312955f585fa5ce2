import HTTPTypes

/// What a client's `Accept-Encoding` says about gzip (RFC 9110, section 12.5.3).
///
/// `gzip` (or its alias `x-gzip`) with a q-value above 0 accepts it; `gzip;q=0` refuses it even when `*`
/// is there; without `gzip`, `*` with a q-value above 0 stands for it. A client that ranks `identity`
/// above gzip gets the plain bytes. Malformed elements are skipped, never an error. The value is read as bytes, as
/// RFC 9110's grammar is written: only `,`, `;` and `=` themselves separate, whatever characters follow them.
struct AcceptEncoding: Equatable {
    /// The client accepts gzip and does not prefer the plain bytes to it.
    let prefersGzip: Bool

    init(_ fields: HTTPFields) {
        var qualities = Qualities()
        HeaderBytes.forEachValue(of: .acceptEncoding, in: fields) { qualities.read($0) }
        prefersGzip = qualities.prefersGzip
    }

    /// The qualities the elements read so far give the codings that matter here.
    private struct Qualities {
        var gzip: Double?
        var identity: Double?
        var any: Double?

        var prefersGzip: Bool {
            let gzipQuality = gzip ?? any ?? 0
            return gzipQuality > 0 && gzipQuality >= (identity ?? 0)
        }

        mutating func read(_ value: HeaderBytes.Bytes) {
            HeaderBytes.forEach(in: value, separatedBy: UInt8(ascii: ",")) { element in
                guard let (coding, quality) = Self.parse(element) else { return }
                // The first mention of a coding counts, as for any list where a repeat is an error.
                if HeaderBytes.equalIgnoringCase(coding, "gzip") || HeaderBytes.equalIgnoringCase(coding, "x-gzip") {
                    gzip = gzip ?? quality
                } else if HeaderBytes.equalIgnoringCase(coding, "identity") {
                    identity = identity ?? quality
                } else if HeaderBytes.equalIgnoringCase(coding, "*") {
                    any = any ?? quality
                }
            }
        }

        /// `coding[;q=value]` as the coding and its quality (1 when absent); nil when malformed.
        private static func parse(_ element: HeaderBytes.Bytes) -> (HeaderBytes.Bytes, Double)? {
            let codingEnd = element.firstIndex(of: UInt8(ascii: ";")) ?? element.endIndex
            let coding = HeaderBytes.trimmed(element[..<codingEnd])
            guard !coding.isEmpty else { return nil }
            var quality = 1.0
            var valid = true
            let parameters = codingEnd == element.endIndex ? element[codingEnd...] : element[(codingEnd + 1)...]
            HeaderBytes.forEach(in: parameters, separatedBy: UInt8(ascii: ";")) { parameter in
                guard valid, let equals = parameter.firstIndex(of: UInt8(ascii: "=")),
                    HeaderBytes.equalIgnoringCase(HeaderBytes.trimmed(parameter[..<equals]), "q")
                else { return }
                // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ); anything else makes the element void.
                let text = HeaderBytes.trimmed(parameter[(equals + 1)...])
                guard text.count <= 5, text.allSatisfy({ $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                    let value = Double(String(decoding: text, as: UTF8.self)), (0...1).contains(value)
                else {
                    valid = false
                    return
                }
                quality = value
            }
            return valid ? (coding, quality) : nil
        }
    }
}
