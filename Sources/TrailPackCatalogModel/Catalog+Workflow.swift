import Foundation
import TrailPackCore

extension Catalog {
    /// The publish workflow's rules, apart from any database: who may make which transition from
    /// which status, the refusals' texts, and when approvals make a version ready. Every store reads
    /// the version (locked against other writers) and what the approval table says, asks ``plan(_:version:user:required:signature:reason:approvals:)``
    /// and carries the plan out in the same transaction, so that the rules are written once.
    public enum Workflow {
        /// What a transition needs to know of the version it applies to.
        public struct Subject: Sendable, Equatable {
            /// Where the version is in the workflow.
            public var status: PublishStatus
            /// The publisher who uploaded it.
            public var uploadedBy: String
            /// The malware scan's verdict.
            public var scanStatus: ScanStatus
            /// What the scan said (shown when it holds the version).
            public var scanDetail: String

            /// A subject with these fields.
            public init(status: PublishStatus, uploadedBy: String, scanStatus: ScanStatus, scanDetail: String) {
                self.status = status
                self.uploadedBy = uploadedBy
                self.scanStatus = scanStatus
                self.scanDetail = scanDetail
            }
        }

        /// What the approval table says of the version; only an approval reads it.
        public struct Approvals: Sendable, Equatable {
            /// The acting user's own approval, if any.
            public enum Own: Sendable, Equatable {
                /// Approved without a signature (a second approval may add one).
                case unsigned
                /// Approved and signed.
                case signed
            }

            /// How many distinct reviewers approved the version.
            public var count: Int
            /// The acting user's approval: nil when they have not approved it.
            public var own: Own?

            /// What the table says: `count` reviewers, the acting user's approval `own`.
            public init(count: Int, own: Own?) {
                self.count = count
                self.own = own
            }

            /// No approvals (what every transition but `approve` is given).
            public static let none = Approvals(count: 0, own: nil)
        }

        /// What a move does to the approval table, in the same transaction.
        public enum ApprovalChange: Sendable, Equatable {
            /// Nothing.
            case none
            /// Adds the acting user's approval, with its signature if any.
            case add(signature: String?)
            /// Adds a signature to the acting user's unsigned approval.
            case sign(String)
            /// Removes every approval of the version.
            case clear
        }

        /// What a store does for a transition.
        public enum Plan: Sendable, Equatable {
            /// The user may not make this transition at all: nothing is changed or audited.
            case forbidden(String)
            /// The transition is not legal now: audited as refused (`<transition>-refused`), nothing changed.
            case refuse(String)
            /// Change the approvals as `approvalChange` says, set the status to `to` (naming the site in
            /// public when it is `released`), and audit the transition with ``auditDetail(from:to:detail:)``.
            case move(to: PublishStatus, approvals: Int, detail: String, approvalChange: ApprovalChange)
        }

        /// Decides `transition` on a version in state `version` by `user`.
        ///
        /// - Parameters:
        ///   - required: how many distinct reviewers' approvals make a version ready.
        ///   - signature: an approval's minisign signature of the package (already checked by the caller).
        ///   - reason: why (a denial's or a withdrawal's reason, shown to the publisher and audited).
        ///   - approvals: what the approval table says (read for `approve` only; ``Approvals/none`` otherwise).
        public static func plan(
            _ transition: Transition, version: Subject, user: User, required: Int, signature: String?,
            reason: String?, approvals: Approvals
        ) -> Plan {
            let status = version.status, uploader = version.uploadedBy
            let because = reason.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap {
                $0.isEmpty ? nil : "reason: " + String($0.prefix(2000))
            }
            switch transition {
            case .start:
                guard user.name == uploader || user.role == .admin else {
                    return .forbidden("only the publisher who uploaded it (\(uploader)) can open its publish request")
                }
                guard status == .draft else {
                    return .refuse("a publish request can be opened on a draft; this version is \(status)")
                }
                return .move(to: required == 0 ? .ready : .pending, approvals: 0, detail: "", approvalChange: .none)
            case .approve:
                guard user.role == .reviewer || user.role == .admin else {
                    return .forbidden("approving needs the reviewer or admin role")
                }
                guard user.name != uploader else { return .forbidden("a publisher cannot approve their own request") }
                guard status == .pending || status == .ready else {
                    return .refuse("only a pending request can be approved; this version is \(status)")
                }
                if let own = approvals.own {
                    // A second approval only adds a signature to an unsigned one; anything else is a repeat.
                    guard let signature, own == .unsigned else {
                        return .refuse(
                            own == .unsigned
                                ? "\(user.name) already approved this version; approve again only to add a signature"
                                : "\(user.name) already approved and signed this version")
                    }
                    return .move(
                        to: status, approvals: approvals.count, detail: "signature added to \(user.name)'s approval",
                        approvalChange: .sign(signature))
                }
                let count = approvals.count + 1
                return .move(
                    to: count >= required ? .ready : .pending, approvals: count,
                    detail: "\(count) of \(required) approvals\(signature == nil ? "" : ", signed")",
                    approvalChange: .add(signature: signature))
            case .deny:
                guard user.role == .reviewer || user.role == .admin else {
                    return .forbidden("denying needs the reviewer or admin role")
                }
                guard status == .pending || status == .ready else {
                    return .refuse("only a pending or ready request can be denied; this version is \(status)")
                }
                return .move(
                    to: .draft, approvals: 0, detail: "approvals cleared" + (because.map { "; " + $0 } ?? ""),
                    approvalChange: .clear)
            case .push:
                guard user.name == uploader else {
                    return .forbidden("only the publisher who uploaded it (\(uploader)) can release it")
                }
                guard status == .ready else {
                    return .refuse("only a ready version can be released; this version is \(status)")
                }
                guard version.scanStatus.releasable else {
                    return .refuse("the version is held by the malware scan: \(version.scanDetail)")
                }
                return .move(
                    to: .released, approvals: 0, detail: version.scanStatus == .notScanned ? notScannedDetail : "",
                    approvalChange: .none)
            case .withdraw:
                guard user.role == .admin else { return .forbidden("withdrawing needs the admin role") }
                guard status == .released else {
                    return .refuse("only a released version can be withdrawn; this version is \(status)")
                }
                return .move(to: .withdrawn, approvals: 0, detail: because ?? "", approvalChange: .none)
            }
        }

        /// What the audit log says of a move: `pending → ready; 2 of 2 approvals`.
        public static func auditDetail(from: PublishStatus, to: PublishStatus, detail: String) -> String {
            "\(from) → \(to)\(detail.isEmpty ? "" : "; " + detail)"
        }

        /// Why `user` may not upload `package` for `site`, or nil when they may: an admin always; a
        /// publisher to the sites granted to them; never a package id that already belongs to another site.
        ///
        /// - Parameters:
        ///   - owner: a site other than `site` that holds versions of `package`, if any.
        ///   - granted: whether `user` holds a grant for `site`.
        public static func uploadRefusal(
            user: User, package id: String, site: String, owner: String?, granted: Bool
        ) -> String? {
            if let owner {
                return
                    "package id '\(id)' belongs to site '\(owner)'; a package cannot move to site '\(site)': use a new package id"
            }
            if user.role == .admin || granted { return nil }
            return
                "'\(user.name)' may not publish to site '\(site)'; an admin grants it with 'trailpack admin grant \(user.name) \(site)'"
        }
    }
}

extension Catalog {
    /// A text key that sorts versions numerically: `1.10` → `000000001.000000010.000000000.000000000`.
    /// Two versions equal after normalisation (`1.0`, `1.0.0`) have the same key.
    public static func versionKey(_ version: String) -> String {
        let parts = PackageVersion(version)?.components ?? []
        let padded = parts + Array(repeating: 0, count: max(0, 4 - parts.count))
        return padded.map { String(repeating: "0", count: max(0, 9 - String($0).count)) + String($0) }.joined(
            separator: ".")
    }

    /// Whether a version's text could name a stored version by normalisation (`2` names a stored `2.0`).
    public static func isVersion(_ version: String) -> Bool { PackageVersion(version) != nil }

    /// Why a version cannot be built again under its number, or nil when it can: only a draft (built
    /// and never sent for review, or sent back) holding the bytes the builder saw.
    public static func replaceRefusal(
        version: String, status: PublishStatus, stored: String, replacing: String
    ) -> String? {
        guard status == .draft else {
            return "version \(version) is \(status) now; it can no longer be built again under the same number"
        }
        guard stored == replacing else {
            return "version \(version) was built again by someone else meanwhile; look at it before building again"
        }
        return nil
    }

    /// The audit entry's words for a version built again under its number (both stores write the same).
    public static func replacedDetail(size: Int64, status: PublishStatus, old: String) -> String {
        "\(size) bytes, \(status); built again under the same number, in place of the bytes with SHA-256 \(old)"
    }

    /// The audit entry's words for a site's home frame set or taken away (both stores write the same).
    public static func siteFrameDetail(_ id: String, _ frame: Bounds?) -> String {
        guard let frame else { return "\(id): no home frame; the map follows its tours" }
        let (sw, ne) = (frame.southwest, frame.northeast)
        return "\(id): home frame \(sw.longitude),\(sw.latitude),\(ne.longitude),\(ne.latitude) (W,S,E,N)"
    }

    /// The audit entry's words for a changed mail address (both stores write the same; the address
    /// itself is not logged).
    public static func emailDetail(_ name: String, _ email: String?) -> String {
        email == nil ? "\(name) gets no mail" : "\(name) has a new mail address"
    }

    /// The audit entry's words for a changed signing key (both stores write the same).
    public static func publicKeyDetail(_ name: String, _ publicKey: String?) -> String {
        publicKey == nil ? "\(name) no longer has a signing key" : "\(name) has a new signing key"
    }

    /// The time as the catalog writes it: ISO 8601 in UTC with milliseconds (text that sorts by time).
    public static func timestamp(_ date: Date = Date()) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    /// What a refused upload's audit entry says: the version is already stored with other bytes.
    public static func conflictDetail(existingVersion: String, existingSHA256: String) -> String {
        "version \(existingVersion) already published with SHA-256 \(existingSHA256)"
    }

    /// Whether a confirmation's key is the one in 64 that also clears the windows no longer counting
    /// (so the tables stay small without a sweep): its last hex digits, read as a number.
    public static func sweepsConfirmationWindows(_ key: String) -> Bool {
        guard let low = UInt8(key.suffix(2), radix: 16) else { return false }
        return low & 0x3f == 0
    }
}
