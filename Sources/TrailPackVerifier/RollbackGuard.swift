import TrailPackCore

/// Rollback protection for clients.
public enum RollbackGuard {
    /// A finding when `manifest`'s version is older than `lastAccepted` (the newest version of the
    /// same package id the client accepted before), even if the package is validly signed.
    public static func check(manifest: Manifest, lastAccepted: String) -> Finding? {
        guard let current = PackageVersion(manifest.version), let last = PackageVersion(lastAccepted) else {
            return Finding(
                .packageRollback, "cannot compare version '\(manifest.version)' with the accepted '\(lastAccepted)'")
        }
        guard current < last else { return nil }
        return Finding(
            .packageRollback,
            "version \(manifest.version) of \(manifest.id) is older than version \(lastAccepted), which was already accepted; refusing a downgrade"
        )
    }
}
