/// The right to do one job for the whole deployment (every replica on one store): run an import of a source
/// (`claimImport`), or send the webhooks' deliveries (`claimWebhookDelivery`). One process holds it at a time, until
/// `release()` or until the process stops: a claim dies with its process, so a replica killed mid-job never blocks
/// the next one.
public protocol StoreClaim: Sendable {
    /// Whether the right is still this process's: false once released, or once the engine let it go (a PostgreSQL
    /// claim's connection ended), after which the job must stop.
    var isHeld: Bool { get }
    /// Gives the right back; calling it again does nothing.
    func release() async
}
