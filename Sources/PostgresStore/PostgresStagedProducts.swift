import CatalogModel
import Foundation
import Logging
import PostgresNIO

/// The rows of the unlogged `staged_products` table under one staging id: every product listing reaches the
/// writer this way, loaded with `COPY … FROM STDIN` (one round trip for the whole batch, no parameters to
/// parse) and applied from there by one statement.
struct PostgresStagedProducts {
    let id: String

    /// A staging id no other run or write uses.
    init(id: String = UUID().uuidString) {
        self.id = id
    }

    /// Appends `rows`, numbered by their position in the listing, each with its search vector when `alphabet` tells
    /// it (`PostgresProductVector`); their keys must not be staged under this id yet.
    func copy(
        _ rows: some Sequence<(index: Int, product: Product)>, into connection: PostgresConnection, alphabet: PostgresSearchAlphabet,
        logger: Logger
    ) async throws {
        var buffer = ByteBuffer()
        var vectors = PostgresProductVector(alphabet: alphabet)
        for (index, product) in rows {
            Self.appendRow(index: index, product: product, stagingID: id, vectors: &vectors, to: &buffer)
        }
        guard buffer.readableBytes > 0 else { return }
        try await connection.copyFrom(table: "staged_products", columns: Self.columns, logger: logger) { writer in
            try await writer.write(buffer)
        }
    }

    /// Removes the staged rows of `keys` and answers the listing position each of them had.
    func remove(keys: [String], from connection: PostgresConnection, logger: Logger) async throws -> [String: Int] {
        var positions: [String: Int] = [:]
        let query: PostgresQuery = """
            DELETE FROM staged_products WHERE staging_id = \(id) AND serial_code = ANY(\(keys)::text[]) RETURNING serial_code, position
            """
        for try await (key, position) in try await connection.query(query, logger: logger).decode((String, Int64).self) {
            positions[key] = Int(position)
        }
        return positions
    }

    func removeAll(from connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM staged_products WHERE staging_id = \(id)", logger: logger)
    }

    /// Stages `products` under a fresh id on `connection`, runs `body` with them, and removes them again, all in
    /// the caller's transaction.
    static func withStaged<Result>(
        _ products: [Product], on connection: PostgresConnection, alphabet: PostgresSearchAlphabet, logger: Logger,
        _ body: (PostgresStagedProducts) async throws -> Result
    ) async throws -> Result {
        let staged = PostgresStagedProducts()
        try await staged.copy(products.enumerated().lazy.map { ($0.offset, $0.element) }, into: connection, alphabet: alphabet, logger: logger)
        let result = try await body(staged)
        try await staged.removeAll(from: connection, logger: logger)
        return result
    }

    static let columns = ["staging_id", "position", "serial_code"] + PostgresRows.productValues + ["search_vector"]

    /// One line of COPY's text format, its fields in `columns` order: tab-separated, escaped, ending in a newline.
    private static func appendRow(
        index: Int, product: Product, stagingID: String, vectors: inout PostgresProductVector, to buffer: inout ByteBuffer
    ) {
        appendField(stagingID, to: &buffer)
        buffer.writeString("\t\(index)\t")
        appendRecord(product, to: &buffer)
        buffer.writeInteger(UInt8(ascii: "\t"))
        appendVector(of: product, writer: &vectors, to: &buffer)
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// A product's search vector in COPY's text format (`PostgresProductVector`), or null (`\\N`) for the server to
    /// compute it (migration v15); whether it was written.
    @discardableResult
    static func appendVector(of product: Product, writer: inout PostgresProductVector, to buffer: inout ByteBuffer) -> Bool {
        // The stored columns, in the order of `catalog_product_search_vector`'s arguments.
        let texts = [product.name, product.brand ?? "", product.description, product.category]
        guard writer.write(texts, to: &buffer) else {
            buffer.writeStaticString("\\N")
            return false
        }
        return true
    }

    /// A product's key and record columns (`PostgresRows.productValues`) in COPY's text format, tab-separated.
    static func appendRecord(_ product: Product, to buffer: inout ByteBuffer) {
        appendField(product.serialCode, to: &buffer)
        for field in PostgresRows.productFields(product) {
            buffer.writeInteger(UInt8(ascii: "\t"))
            switch field {
            case .text(let text): appendField(text, to: &buffer)
            case .integer(let number): buffer.writeString(String(number))
            }
        }
    }

    /// Text as COPY reads it: a backslash, tab, newline or carriage return is escaped with a backslash.
    static func appendField(_ text: String, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
                buffer.writeBytes(bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        }
    }
}
