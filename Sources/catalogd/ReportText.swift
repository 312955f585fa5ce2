import ArgumentParser
import CatalogAPI
import CatalogImport
import CatalogModel
import CatalogStore
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How `catalogd import` prints a report.
enum ReportText {
    static func text(_ report: ImportReport) -> String {
        var lines = ["import \(report.id): \(report.summary)"]
        for rejection in report.rejections.prefix(20) {
            lines.append("  rejected #\(rejection.index)\(rejection.key.map { " (\($0))" } ?? ""): \(rejection.reason)")
        }
        if report.rejected > 20 { lines.append("  … \(report.rejected - 20) more rejections in GET /imports/\(report.id)") }
        return lines.joined(separator: "\n")
    }

    static func json(_ report: ImportReport) -> String {
        var writer = JSONWriter()
        report.write(url: nil, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
