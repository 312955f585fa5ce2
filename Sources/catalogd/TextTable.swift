/// Rows printed as columns padded to their widest cell, two spaces apart, as `token list` and `webhook list` show them.
enum TextTable {
    static func lines(_ rows: [[String]]) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            var line = ""
            for (cell, width) in zip(row, widths) {
                if !line.isEmpty { line += "  " }
                line += cell + String(repeating: " ", count: max(0, width - cell.count))
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
