/// A page's HTML, built as bytes. Tags and attribute names can only be string literals (`StaticString`); every
/// `String` — a feed's value, a writer's, a URL — is written escaped, in text and in attributes alike. So
/// whatever a product is named, it shows as text and never becomes markup: escaping by construction.
///
/// Chosen over templates (`swift-mustache`): a page here is a loop over typed rows; a typed writer keeps that in
/// Swift, checked by the compiler, with no template files to ship and no values looked up by name at run time,
/// and costs about what the JSON writer beside it does.
struct HTMLWriter {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(16 * 1024)
    }

    /// Markup written as it is: only literals reach here.
    mutating func markup(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Text, escaped. The runs between the bytes that need escaping are appended whole: byte by byte, text was
    /// a third of a product page's rendering.
    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { source in
            var runStart = source.startIndex
            for index in source.indices {
                let escaped: StaticString
                switch source[index] {
                case UInt8(ascii: "&"): escaped = "&amp;"
                case UInt8(ascii: "<"): escaped = "&lt;"
                case UInt8(ascii: ">"): escaped = "&gt;"
                case UInt8(ascii: "\""): escaped = "&quot;"
                case UInt8(ascii: "'"): escaped = "&#39;"
                default: continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<index]))
                markup(escaped)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart...]))
        }
    }

    /// An opening tag; an attribute whose value is nil is left out, one whose value is empty is written bare.
    mutating func open(_ tag: StaticString, _ attributes: KeyValuePairs<StaticString, String?> = [:]) {
        markup("<")
        markup(tag)
        for (name, value) in attributes {
            guard let value else { continue }
            markup(" ")
            markup(name)
            guard !value.isEmpty else { continue }
            markup("=\"")
            text(value)
            markup("\"")
        }
        markup(">")
    }

    mutating func close(_ tag: StaticString) {
        markup("</")
        markup(tag)
        markup(">")
    }

    /// An element holding `content` as text.
    mutating func element(_ tag: StaticString, _ attributes: KeyValuePairs<StaticString, String?> = [:], _ content: String) {
        open(tag, attributes)
        text(content)
        close(tag)
    }

    /// An element without attributes holding `content` as text.
    mutating func element(_ tag: StaticString, _ content: String) {
        element(tag, [:], content)
    }

    /// An element whose content `body` writes.
    mutating func element(
        _ tag: StaticString, _ attributes: KeyValuePairs<StaticString, String?> = [:], _ body: (inout HTMLWriter) throws -> Void
    ) rethrows {
        open(tag, attributes)
        try body(&self)
        close(tag)
    }

    /// A link holding `content` as text.
    mutating func link(_ href: String, _ content: String, rel: String? = nil) {
        element("a", ["href": href, "rel": rel], content)
    }
}
