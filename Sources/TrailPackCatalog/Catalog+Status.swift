import GRDB

extension Catalog {
    /// Where a package version is in the publishing workflow. Stored as its raw text.
    public enum PublishStatus: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible, CustomStringConvertible {
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
    public enum ScanStatus: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible, CustomStringConvertible {
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
}
