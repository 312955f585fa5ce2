import CatalogModel

/// What asking for the right to run an import gives.
public enum ImportClaimOutcome: Sendable {
    /// The right, now this process's. Runs left `running` by a process that stopped are already marked failed.
    case claimed(any StoreClaim)
    /// Another process holds it; the id of the run it reports as in progress, when there is one yet.
    case heldElsewhere(runningImport: Int64?)
}

extension CatalogStore {
    /// Marks failed the runs of every source left `running` by a process that stopped, without touching a run that
    /// another live process holds: each source is claimed, which does it, and released at once.
    public func failInterruptedImports() async throws {
        for source in FeedSource.allCases {
            if case .claimed(let claim) = try await claimImport(of: source) { await claim.release() }
        }
    }
}
