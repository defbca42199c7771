import Foundation
import TrailPackCore
import TrailPackCrypto

/// Everything the server, the control panel and `trailpack admin` ask of a catalog, asynchronously
/// and without seeing a database: SQLite through GRDB (`SQLiteCatalog`, one server per data folder)
/// and PostgreSQL through postgres-nio (`PostgresCatalog`, several servers sharing one catalog) are
/// the two stores. Both pass the same tests (`Tests/TrailPackCatalogTests`, parameterized by store).
///
/// Every change is one transaction: racing requests (on one server or on several) leave one of the
/// legal outcomes. A store that cannot take a request in time throws ``CatalogError/busy(_:)``.
public protocol CatalogStore: Sendable {
    /// Moves whenever a committed change alters the public answers (sites, released versions,
    /// manifests) — this server's changes and, for a shared catalog, another server's: what a
    /// server keeps of them is good while it stays the same. Read without waiting.
    var publicChangeCount: UInt64 { get }

    // MARK: public answers

    /// Sites with at least one released package, by id.
    func sites() async throws -> [Catalog.SiteSummary]
    /// One page of a site's released packages (the newest released version of each), by id, after `after`.
    func packages(site: String, limit: Int, after: String?) async throws -> Catalog.Page
    /// Whether the site exists.
    func siteExists(_ id: String) async throws -> Bool
    /// One page of a site's packages, or nil when there is no such site (one call for the list route).
    func sitePage(site: String, limit: Int, after: String?) async throws -> Catalog.Page?
    /// A version (nil `version`: the newest released one); `releasedOnly` hides the others.
    func version(package id: String, version: String?, releasedOnly: Bool) async throws -> Catalog.RegisteredVersion?
    /// The released versions of a package, newest first.
    func versions(package id: String) async throws -> [Catalog.PackageSummary]
    /// The size of a blob some released version holds, or nil (it may not be downloaded).
    func isReleasedBlob(_ sha256: String) async throws -> Int64?
    /// The version as the catalog stores it (`1.0` names a stored `1.0.0`), or nil when none equals it.
    func storedVersion(package id: String, version: String) async throws -> String?
    /// The reviewers' signatures of an approved version.
    func approvalSignatures(package id: String, version: String) async throws -> [(reviewer: String, signature: String)]

    // MARK: uploads and blobs

    /// Why `user` may not upload `package` for `site`, or nil when they may.
    func uploadRefusal(user: Catalog.User, package id: String, site: String) async throws -> String?
    /// Versions under review stored as `sha256`, or the one `package`/`version`.
    func unreleased(
        sha256: String?, package id: String?, version: String?
    ) async throws -> [(summary: Catalog.PackageSummary, uploadedBy: String)]
    /// Claims `version` of `package` (its normalised spelling: `1.0` and `1.0.0` are one) for the
    /// upload of `sha256`, across every server sharing the catalog, before its bytes are scanned or
    /// stored: the loser of a race never stores a blob. A claim older than `staleAfter` seconds
    /// (a server that died holding it) is taken over. One transaction.
    func claimVersion(
        package id: String, version: String, sha256: String, now: Double, staleAfter: Double
    ) async throws -> Catalog.VersionClaim
    /// Gives up the claim of `sha256` on `version` of `package` (another upload's claim is left alone).
    func releaseVersionClaim(package id: String, version: String, sha256: String) async throws
    /// Records a blob about to be stored, so that no stored blob is ever unknown to the catalog.
    func recordBlob(sha256: String, size: Int64) async throws
    /// Records an uploaded, verified package whose blob is stored. One transaction.
    func register(
        manifest: Manifest, manifestJSON: String, sha256: String, size: Int64, actor: String,
        status: Catalog.PublishStatus
    ) async throws -> Catalog.RegisterOutcome
    /// Puts the stored bytes `sha256` in place of a version that is a draft (built and never sent
    /// for review, or sent back by a reviewer) and still holds `replacing`, keeping its number: the old
    /// bytes' manifest is kept (``replacedBytes(package:version:)``), the scan verdict and approvals
    /// are cleared, the status set to `status`, and the change audited. One transaction. Returns nil
    /// when replaced, else why not, in words (the version is no longer a draft, or holds other bytes).
    func replaceDraft(
        manifest: Manifest, manifestJSON: String, sha256: String, size: Int64, actor: String,
        status: Catalog.PublishStatus, replacing: String
    ) async throws -> String?
    /// The bytes `version` held before it was built again under its number, oldest first.
    func replacedBytes(package id: String, version: String) async throws -> [Catalog.ReplacedBytes]
    /// Every blob the catalog records.
    func blobHashes() async throws -> Set<String>
    /// The blobs the catalog records (only those some version in service holds, with `inService`).
    func storedBlobs(inService: Bool) async throws -> [(sha256: String, size: Int64)]
    /// Blobs no version holds, recorded before `date` (`trailpack admin gc`: an upload in flight on
    /// another server has recorded its blob but not yet its version).
    func unusedBlobs(recordedBefore date: Date) async throws -> [String]
    /// Forgets a blob no version holds (after gc moved it away).
    func forgetUnusedBlob(sha256: String) async throws
    /// Takes the versions stored as `sha256` out of service; returns them.
    func markDamaged(sha256: String, reason: String, actor: String) async throws -> [String]
    /// Brings the damaged versions stored as `sha256` back to what they were; returns them.
    func restoreDamaged(sha256: String, actor: String, detail: String) async throws -> [String]
    /// The damaged versions stored as `sha256`.
    func damagedVersions(sha256: String) async throws -> [String]
    /// Runs `body` as the only maintenance (`admin gc`, `admin scrub`) of this catalog and its
    /// packages: a second one, from any server, is refused with ``CatalogError/busy(_:)`` while it
    /// runs. (A SQLite catalog's data folder is locked by the command itself, which keeps servers
    /// out as well.)
    func withMaintenanceLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
    /// Writes a consistent copy of the catalog to `path`, where the store can (SQLite); a shared
    /// store throws, saying what to use instead (PostgreSQL: `pg_dump`).
    func backup(to path: String) async throws

    // MARK: confirmations

    /// Judges a client's confirmation and counts it (unless `count` is false): a match when the
    /// SHA-256 is the version's, a mismatch otherwise or when the client `refused` the download (by
    /// its hash or its signatures).
    func confirm(
        package id: String, version: String, sha256: String, refused: Bool, count: Bool
    ) async throws -> Catalog.Confirmation?
    /// Whether a confirmation from `address` for `download` is counted: once per download a day,
    /// at most `perMinute` an address — counted across every server sharing the catalog.
    func admitConfirmation(address: String, download: String, perMinute: Int, now: Date) async throws -> Bool
    /// The confirmation counters of every version.
    func confirmations() async throws -> [Catalog.Confirmations]

    // MARK: users, tokens, sites and grants

    /// Adds a user; a name in use (or once used: a removed user's) is refused (``CatalogError/userExists(_:)``).
    func addUser(name: String, role: Catalog.Role, publicKey: String?) async throws
    /// Adds the user unless one has the name (the admin token's user).
    func ensureUser(name: String, role: Catalog.Role) async throws
    /// The users not removed, by name.
    func users() async throws -> [Catalog.User]
    /// Removes a user: their tokens revoked, their grants dropped, their name kept in the history.
    func removeUser(name: String) async throws
    /// Changes a user's role.
    func setRole(name: String, role: Catalog.Role) async throws
    /// Gives a user the minisign public key (a `.pub` file's text) their approvals are signed
    /// with, replacing the one they had; nil takes it away.
    func setPublicKey(name: String, publicKey: String?) async throws
    /// Sets the mail address the panel's notices are sent to (`serve --smtp`); nil takes it away.
    /// The address is checked by the caller (`SMTPMail.isAddress`).
    func setEmail(name: String, email: String?) async throws
    /// Every user's mail address (users not removed, with an address), by name.
    func emailAddresses() async throws -> [String: String]
    /// Stores a user's control panel password hash (a `PasswordHash` text, never the password).
    func setPassword(name: String, hash: String) async throws
    /// The user (not removed) and their stored password hash, or nil.
    func signInRecord(name: String) async throws -> Catalog.SignInRecord?
    /// The user (not removed), or nil.
    func user(name: String) async throws -> Catalog.User?
    /// Issues an API token for `user` (`tp_<id>_<secret>`; only the secret's SHA-256 is kept).
    func issueToken(user: String) async throws -> Catalog.IssuedToken
    /// Revokes a token; whether it was live.
    func revokeToken(id: String) async throws -> Bool
    /// Every token issued, by user.
    func tokens() async throws -> [Catalog.TokenInfo]
    /// The user a bearer token names, or nil (unknown, revoked, or its user removed).
    func authenticate(token: String) async throws -> Catalog.User?
    /// Adds a site with an admin's public name, or with none (its first release names it); a site
    /// that exists is refused, unless it has no name yet and `name` gives it one.
    func addSite(id: String, name: String?) async throws
    /// Sets a site's public name (a release never replaces an admin's name).
    func renameSite(id: String, name: String) async throws
    /// Sets the frame the control panel's map opens on for a new tour of the site (its "home");
    /// nil takes it away, and the map follows the site's tours again.
    func setSiteFrame(id: String, frame: Bounds?) async throws
    /// The home frame an admin set for the site, or nil (none set, or no such site).
    func siteFrame(id: String) async throws -> Bounds?
    /// Lets a publisher upload packages of a site, which must exist.
    func grant(user: String, site: String) async throws
    /// Takes a grant back; whether there was one.
    func revokeGrant(user: String, site: String) async throws -> Bool
    /// Every grant, by user and site.
    func grants() async throws -> [(user: String, site: String)]
    /// The sites `user` may make tours for (an admin: every site).
    func workableSites(for user: Catalog.User) async throws -> [(id: String, name: String)]

    // MARK: the workflow

    /// Applies `transition` to a version as `user`, in one transaction (see `Catalog.Workflow`).
    func apply(
        _ transition: Catalog.Transition, package id: String, version: String, by user: Catalog.User, required: Int,
        signature: String?, reason: String?
    ) async throws -> Catalog.TransitionOutcome
    /// Records the malware scan's verdict on a stored version.
    func setScan(package id: String, version: String, status: Catalog.ScanStatus, detail: String) async throws
    /// Records a new scan of a stored version, audited with the change.
    func recordRescan(
        package id: String, version: String, status: Catalog.ScanStatus, detail: String, actor: String) async throws
    /// What `admin rescan` scans: every stored version, or only those held.
    func scanTargets(
        heldOnly: Bool
    ) async throws -> [(id: String, version: String, sha256: String, scanStatus: Catalog.ScanStatus)]
    /// Where a version is in the workflow, with its approvers, or nil.
    func state(package id: String, version: String) async throws -> Catalog.VersionState?

    // MARK: review pages

    /// Versions in `statuses`, the most recently uploaded first.
    func reviewQueue(statuses: [Catalog.PublishStatus], limit: Int) async throws -> [Catalog.VersionRecord]
    /// Versions waiting for `reviewer`'s approval.
    func waitingCount(for reviewer: String) async throws -> Int
    /// A package's versions in every state.
    func history(package id: String) async throws -> [Catalog.VersionRecord]
    /// One version in any state, with its approvals, or nil.
    func record(package id: String, version: String) async throws -> Catalog.VersionRecord?

    // MARK: the audit log (append-only)

    /// The audit log after entry `after`, oldest first (entries are numbered in commit order).
    func auditLog(after: Int64, limit: Int) async throws -> [Catalog.AuditEntry]
    /// One package's audit trail, oldest first.
    func auditLog(package id: String, limit: Int) async throws -> [Catalog.AuditEntry]
    /// Appends an entry to the audit log (in its own transaction).
    func audit(
        actor: String, action: Catalog.AuditAction, id: String?, version: String?, sha256: String?, detail: String)
        async throws

    // MARK: the control panel's sessions and sign-in throttle (shared by every server)

    /// Keeps a new session; `replacing` (an id the browser sent with the sign-in form) is ended.
    func startSession(_ session: Catalog.Session, replacing: String?) async throws
    /// The live session with this id, its last use moved to `now`; nil when unknown or expired
    /// (an expired one is ended).
    func session(
        id: String, now: Date, idleTimeout: TimeInterval, absoluteTimeout: TimeInterval
    ) async throws
        -> Catalog.Session?
    /// Ends a session and its notes.
    func endSession(id: String) async throws
    /// Ends every session of `user` but `keeping` (a password changed, a user removed).
    func endSessions(user: String, keeping: String?) async throws
    /// Keeps one note (a flash message or a form's refusal) for the session's next page.
    func setSessionNote(id: String, kind: Catalog.SessionNote, text: String) async throws
    /// The note kept for the session, once.
    func takeSessionNote(id: String, kind: Catalog.SessionNote) async throws -> String?
    /// Checks each key's failures in the last `window` seconds against its limit and, when every
    /// key may try, counts this attempt as a failure under each — one step, so parallel guesses
    /// are checked at most `limit` times however they race.
    func beginSignIn(
        keys: [Catalog.ThrottleKey], window: TimeInterval, now: Date
    ) async throws
        -> Catalog.ThrottleDecision
    /// The attempt's password was right: its failure is taken back under `forgetAll` keys entirely
    /// and under the others once.
    func signInSucceeded(_ attempt: Catalog.SignInAttempt, forgetAll: [String]) async throws
}

extension CatalogStore {
    /// A transition without a reason (start, approve, push).
    public func apply(
        _ transition: Catalog.Transition, package id: String, version: String, by user: Catalog.User, required: Int,
        signature: String?
    ) async throws -> Catalog.TransitionOutcome {
        try await apply(
            transition, package: id, version: version, by: user, required: required, signature: signature, reason: nil)
    }

    /// One page of a site's packages, or nil when there is no such site.
    public func sitePage(site: String, limit: Int, after: String?) async throws -> Catalog.Page? {
        guard try await siteExists(site) else { return nil }
        return try await packages(site: site, limit: limit, after: after)
    }
}

extension Catalog {
    /// A signed-in control panel session, as the catalog keeps it (by the SHA-256 of its id).
    public struct Session: Sendable, Equatable {
        /// The cookie's value: 32 random bytes, base64url.
        public var id: String
        public var user: String
        /// Sent back in every state-changing form (`_csrf`) or fetch (`X-CSRF-Token`).
        public var csrfToken: String
        /// A digest of the user's stored password hash at sign-in: a changed password ends the session.
        public var credential: String
        public var created: Date
        public var lastSeen: Date

        /// A session with these fields.
        public init(id: String, user: String, csrfToken: String, credential: String, created: Date, lastSeen: Date) {
            self.id = id
            self.user = user
            self.csrfToken = csrfToken
            self.credential = credential
            self.created = created
            self.lastSeen = lastSeen
        }
    }

    /// What a session keeps for its next page.
    public enum SessionNote: String, Sendable, CaseIterable {
        /// A message ("'view.png' was added").
        case flash
        /// Why a form was refused.
        case problem
        /// A secret for the session's next page (a new token), sealed with the session's id, which
        /// the catalog never holds: the catalog's copy cannot be read without the browser's cookie.
        case sealed
    }

    /// A sign-in throttle key (`address:…`, `pair:…|name`) and how many failures it may have in the window.
    public struct ThrottleKey: Sendable, Equatable {
        public var key: String
        public var limit: Int

        /// A key with its limit.
        public init(key: String, limit: Int) {
            self.key = key
            self.limit = limit
        }
    }

    /// An attempt counted as a failure until its password is found right.
    public struct SignInAttempt: Sendable, Equatable {
        public var keys: [String]
        public var at: Date

        /// An attempt under these keys at this time.
        public init(keys: [String], at: Date) {
            self.keys = keys
            self.at = at
        }
    }

    /// What `beginSignIn` decided.
    public enum ThrottleDecision: Sendable, Equatable {
        case allowed(SignInAttempt)
        /// Seconds to wait before trying again.
        case wait(Int)
    }
}

extension Catalog {
    /// How a store keys a session (and a confirmation's download): the SHA-256 of the id, so that a
    /// copy of the catalog signs nobody in.
    public static func sessionKey(_ id: String) -> String { SHA256.hash(Array(id.utf8)).hex }

    /// A download's confirmation is counted once in this many seconds.
    public static let confirmationRepeatWindow: TimeInterval = 86_400

    /// Seconds a throttled key waits: until its oldest failure in the window leaves it (at least 1).
    public static func throttleWait(oldest: Double, window: TimeInterval, now: Double) -> Int {
        max(1, Int((window - (now - oldest)).rounded(.up)))
    }
}
