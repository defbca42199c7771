/// The catalog's model, apart from any database: the types every catalog store reads and writes
/// (users, roles, sites, versions and their states, transitions, approvals, confirmations, the
/// audit log) and the ``CatalogStore`` protocol. The server, the panel and the command line see
/// these only; SQLite (`TrailPackCatalog`) and PostgreSQL (`TrailPackCatalogPostgres`) are stores.
public enum Catalog {
    /// Who the audit log names for an administration change (users, passwords, tokens, sites,
    /// grants): `admin-cli` for `trailpack admin`, `NAME (panel)` for an admin in the control panel,
    /// bound around the catalog call with `Catalog.$auditActor.withValue(…)`.
    @TaskLocal public static var auditActor = "admin-cli"
    /// What the audit log says of a version released without a malware scan.
    public static let notScannedDetail = "not scanned (operator's choice: --no-malware-scan)"

    public struct SiteSummary: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var packages: Int

        /// A value with these fields.
        public init(id: String, name: String, packages: Int) {
            self.id = id
            self.name = name
            self.packages = packages
        }
    }

    public struct PackageSummary: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var description: String
        public var park: String
        public var site: String
        public var version: String
        public var size: Int64
        public var sha256: String
        public var status: PublishStatus

        /// A value with these fields.
        public init(
            id: String, name: String, description: String, park: String, site: String, version: String, size: Int64,
            sha256: String, status: PublishStatus
        ) {
            self.id = id
            self.name = name
            self.description = description
            self.park = park
            self.site = site
            self.version = version
            self.size = size
            self.sha256 = sha256
            self.status = status
        }
    }

    /// What claiming a version for an upload found (``CatalogStore/claimVersion(package:version:sha256:now:staleAfter:)``).
    public enum VersionClaim: Sendable, Equatable {
        /// The version is this upload's until it releases it.
        case claimed
        /// Another upload of the same bytes holds it (on this server or another): wait and claim again.
        case sameBytes
        /// Another upload of other bytes holds it.
        case otherBytes
    }

    /// What registering an upload did.
    public enum RegisterOutcome: Sendable, Equatable {
        /// A new version was added.
        case created
        /// The same bytes were already registered for this version: nothing changed.
        case unchanged
        /// This version (or one equal to it, `1.0` = `1.0.0`) is already registered with other bytes;
        /// versions are immutable.
        case conflict(existingVersion: String, existingSHA256: String)
    }

    public struct Confirmations: Codable, Sendable, Equatable {
        public var id: String
        public var version: String
        public var match: Int
        public var mismatch: Int

        /// A value with these fields.
        public init(id: String, version: String, match: Int, mismatch: Int) {
            self.id = id
            self.version = version
            self.match = match
            self.mismatch = mismatch
        }
    }

    public struct AuditEntry: Codable, Sendable, Equatable {
        public var id: Int64
        public var at: String
        public var actor: String
        public var action: String
        public var packageID: String?
        public var version: String?
        public var sha256: String?
        public var detail: String

        /// A value with these fields.
        public init(
            id: Int64, at: String, actor: String, action: String, packageID: String?, version: String?, sha256: String?,
            detail: String
        ) {
            self.id = id
            self.at = at
            self.actor = actor
            self.action = action
            self.packageID = packageID
            self.version = version
            self.sha256 = sha256
            self.detail = detail
        }
    }

    public enum Role: String, Codable, Sendable, CaseIterable {
        case publisher, reviewer, admin
    }

    public struct User: Codable, Sendable, Equatable {
        public var name: String
        public var role: Role
        /// The reviewer's minisign public key (base64), for signed approvals.
        public var publicKey: String?

        public init(name: String, role: Role, publicKey: String?) {
            self.name = name
            self.role = role
            self.publicKey = publicKey
        }
    }

    public enum Transition: String, Sendable {
        case start, approve, deny, push, withdraw
    }

    /// What a transition did, or why it was refused.
    public enum TransitionOutcome: Sendable, Equatable {
        case moved(from: PublishStatus, to: PublishStatus, approvals: Int)
        case illegal(current: PublishStatus, reason: String)
        case forbidden(String)
        case notFound
    }

    public struct VersionState: Codable, Sendable, Equatable {
        public var status: PublishStatus
        public var uploadedBy: String
        public var scanStatus: ScanStatus
        public var scanDetail: String
        public var approvals: [String]

        /// A value with these fields.
        public init(
            status: PublishStatus, uploadedBy: String, scanStatus: ScanStatus, scanDetail: String, approvals: [String]
        ) {
            self.status = status
            self.uploadedBy = uploadedBy
            self.scanStatus = scanStatus
            self.scanDetail = scanDetail
            self.approvals = approvals
        }
    }

    /// The bytes a version held before it was built again under the same number (see
    /// ``CatalogStore/replaceDraft(manifest:manifestJSON:sha256:size:actor:status:replacing:)``): what
    /// a reviewer compares the new bytes with.
    public struct ReplacedBytes: Sendable, Equatable {
        /// The SHA-256 of the bytes replaced.
        public var sha256: String
        /// Their size in bytes.
        public var size: Int64
        /// Their manifest (JSON text).
        public var manifest: String
        /// Who built the version again.
        public var replacedBy: String

        /// A value with these fields.
        public init(sha256: String, size: Int64, manifest: String, replacedBy: String) {
            self.sha256 = sha256
            self.size = size
            self.manifest = manifest
            self.replacedBy = replacedBy
        }
    }

    /// One version with its place in the publish workflow.
    public struct VersionRecord: Sendable, Equatable {
        public var summary: PackageSummary
        public var uploadedBy: String
        /// When it was uploaded (ISO 8601, UTC).
        public var createdAt: String
        public var approvals: [Approval]
        public var scanStatus: ScanStatus
        public var scanDetail: String

        /// A value with these fields.
        public init(
            summary: PackageSummary, uploadedBy: String, createdAt: String, approvals: [Approval],
            scanStatus: ScanStatus, scanDetail: String
        ) {
            self.summary = summary
            self.uploadedBy = uploadedBy
            self.createdAt = createdAt
            self.approvals = approvals
            self.scanStatus = scanStatus
            self.scanDetail = scanDetail
        }
    }

    public struct Approval: Sendable, Equatable {
        public var reviewer: String
        public var at: String
        public var signed: Bool

        /// A value with these fields.
        public init(reviewer: String, at: String, signed: Bool) {
            self.reviewer = reviewer
            self.at = at
            self.signed = signed
        }
    }

    public struct TokenInfo: Sendable, Equatable {
        public var id: String
        public var user: String
        public var createdAt: String
        public var revokedAt: String?

        /// A value with these fields.
        public init(id: String, user: String, createdAt: String, revokedAt: String?) {
            self.id = id
            self.user = user
            self.createdAt = createdAt
            self.revokedAt = revokedAt
        }
    }
}
