extension Catalog {
    /// Where a package version is in the publishing workflow. Stored as its raw text.
    public enum PublishStatus: String, Codable, Sendable, CaseIterable,
        CustomStringConvertible
    {
        /// Uploaded; its publisher may open a publish request.
        case draft
        /// Waiting for reviewers' approvals.
        case pending
        /// Approved by enough reviewers; its publisher may release it.
        case ready
        /// Public: listed and served.
        case released
        /// Taken back by an admin: no longer listed.
        case withdrawn
        /// Its stored file was found damaged: out of service.
        case damaged

        public var description: String { rawValue }
    }

    /// The malware scan's verdict on a stored version. Stored as its raw text.
    public enum ScanStatus: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
        case clean
        /// The scan could not vouch for the bytes (scanner failed, limits, encrypted content): not releasable.
        case held
        /// Not scanned, by the operator's choice (`--no-malware-scan`).
        case notScanned = "not-scanned"
        case infected

        public var description: String { rawValue }
        /// Whether a version with this verdict may be released.
        public var releasable: Bool { self == .clean || self == .notScanned }
    }

    /// What an audit entry records. Written typed; read back as text (`AuditEntry.action`), since
    /// the log keeps what older versions wrote too.
    public enum AuditAction: String, Codable, Sendable, CaseIterable {
        case upload, uploadRefused = "upload-refused", scanHeld = "scan-held", scanSkipped = "scan-skipped", rescan,
            damaged
        case start, approve, deny, push, withdraw
        case startRefused = "start-refused", approveRefused = "approve-refused", denyRefused = "deny-refused"
        case pushRefused = "push-refused", withdrawRefused = "withdraw-refused"
        case userAdd = "user-add", userRemove = "user-remove", userRole = "user-role", tokenIssue = "token-issue",
            tokenRevoke = "token-revoke", userPassword = "user-password", userKey = "user-key", userEmail = "user-email"
        case siteAdd = "site-add", siteRename = "site-rename", siteFrame = "site-frame", siteMap = "site-map", grant,
            grantRevoke = "grant-revoke", gcQuarantine =
            "gc-quarantine"
        /// A damaged version's intact bytes were brought back: it is in service again.
        case restored

        /// The action a transition records, or its refusal.
        public static func transition(_ t: Transition, refused: Bool = false) -> AuditAction {
            switch (t, refused) {
            case (.start, false): .start
            case (.approve, false): .approve
            case (.deny, false): .deny
            case (.push, false): .push
            case (.withdraw, false): .withdraw
            case (.start, true): .startRefused
            case (.approve, true): .approveRefused
            case (.deny, true): .denyRefused
            case (.push, true): .pushRefused
            case (.withdraw, true): .withdrawRefused
            }
        }
    }
}
