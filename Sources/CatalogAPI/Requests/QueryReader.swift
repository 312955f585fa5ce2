import CatalogModel
import CatalogStore
import Foundation
import Hummingbird

/// Reads and validates query parameters; a bad value is a 400 problem that names the parameter.
struct QueryReader {
    /// The first non-empty value of each parameter. A parameter given empty is absent, whatever its type, as the
    /// API description says: a form sends a field left blank so, and a page's clean URL leaves it out
    /// (`PageURLs.canonical`), so that JSON and the page read the same parameters.
    let parameters: [String: String]

    init(_ request: Request) {
        var parameters: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where !value.isEmpty && parameters[String(name)] == nil {
            parameters[String(name)] = String(value)
        }
        self.parameters = parameters
    }

    func string(_ name: String) -> String? { parameters[name] }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(Problem) -> Int? {
        guard let text = parameters[name] else { return nil }
        // Digits alone: `Int` would take `+5`, which a page, reading a form's `+` as a space, would refuse.
        guard text.utf8.allSatisfy(Self.isDigit), let value = Int(text), range.contains(value) else {
            throw Problem.badParameter(name, "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return value
    }

    func bool(_ name: String) throws(Problem) -> Bool? {
        guard let text = parameters[name] else { return nil }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw Problem.badParameter(name, "\(name) must be true or false, got '\(text)'")
        }
    }

    func price(_ name: String) throws(Problem) -> Price? {
        guard let text = parameters[name] else { return nil }
        // A plain decimal, as the API description's pattern says: the exponent form a feed may use would take
        // `1e+2`, which a page, reading a form's `+` as a space, would refuse.
        guard text.utf8.allSatisfy({ Self.isDigit($0) || $0 == UInt8(ascii: ".") }) else {
            throw Problem.badParameter(name, "\(name) must be a plain decimal number such as 19.99, got '\(text)'")
        }
        do {
            return try Price(parsing: text)
        } catch {
            throw Problem.badParameter(name, "\(name): \(error.reason)")
        }
    }

    /// The `search` text, at most `SearchText.maximumBytes` bytes.
    func search() throws(Problem) -> String? {
        guard let text = string("search") else { return nil }
        guard text.utf8.count <= SearchText.maximumBytes else {
            throw Problem.badParameter("search", "search must be at most \(SearchText.maximumBytes) bytes, got \(text.utf8.count)")
        }
        return text
    }

    /// Whether `byte` is an ASCII digit.
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// A path parameter, percent-decoded: `/products/A%20B` names the product `A B`.
    static func pathParameter<Context: RequestContext>(_ name: String, _ context: Context) throws(Problem) -> String {
        let raw = context.parameters.get(name) ?? ""
        guard let decoded = raw.removingPercentEncoding else {
            throw Problem.badParameter(name, "\(name) is not valid percent-encoded UTF-8: '\(raw)'")
        }
        return decoded
    }

    /// A path parameter that must be a positive integer, such as `/films/{episode_id}`.
    ///
    /// Hummingbird's `parameters.require(_:as:)` would take 0 and negatives, and its error names neither the
    /// parameter nor the rule: the problem it renders is not this 400 `invalid-parameter`.
    static func positiveInteger<Integer: FixedWidthInteger, Context: RequestContext>(
        _ name: String, _ context: Context, as: Integer.Type
    ) throws(Problem) -> Integer {
        let text = context.parameters.get(name) ?? ""
        guard let value = Integer(text), value > 0 else { throw Problem.badParameter(name, "\(name) must be a positive integer, got '\(text)'") }
        return value
    }

    /// The facets asked for (`facets`, comma-separated names; nil when absent) and how many values of each
    /// (`facet_size`, checked whether or not facets are asked for).
    func facets() throws(Problem) -> (fields: [ProductFacetField], size: Int)? {
        let size = try integer("facet_size", in: 1...ProductFacets.maximumSize) ?? ProductFacets.defaultSize
        guard let text = string("facets") else { return nil }
        var fields: [ProductFacetField] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let field = ProductFacetField(rawValue: String(name)) else {
                let known = ProductFacetField.allCases.map(\.rawValue).joined(separator: ", ")
                throw Problem.badParameter("facets", "unknown facet '\(name)'; the facets are \(known)")
            }
            if !fields.contains(field) { fields.append(field) }
        }
        return (fields, size)
    }

    /// `ordering`, `page_size` and `cursor`.
    func pageRequest() throws(Problem) -> PageRequest {
        PageRequest(
            ordering: parameters["ordering"],
            pageSize: try integer("page_size", in: 1...PageRequest.maximumPageSize) ?? PageRequest.defaultPageSize,
            cursor: string("cursor"))
    }
}
