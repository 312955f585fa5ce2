import HTTPTypes

/// The headers every page and asset carries: scripts and styles from this service only (no inline script, so a
/// value that slipped into markup could not run), no framing, no content sniffing.
enum PageSecurity {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'"

    static let headers: HTTPFields = [
        .contentSecurityPolicy: contentSecurityPolicy, .xContentTypeOptions: "nosniff", .referrerPolicy: "same-origin",
    ]
}

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
