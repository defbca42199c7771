import Foundation
import Logging
import Synchronization
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackVerifier

/// How a package file becomes a stored version: verified (in a contained child process), checked
/// for template text and for the uploader's rights, compared with what the catalog holds, scanned
/// for malware, stored and registered — every step audited. The API's upload and the Web Control
/// Panel's "Build package" both come here: one implementation.
public struct PackageIntake: Sendable {
    let catalog: any CatalogStore
    let blobs: any BlobStore
    let configuration: ServerConfiguration
    let scans: ScanQueue
    /// Blocking work (a stat of the upload).
    let pool: BlockingPool
    /// Waits for the contained verifier.
    let childPool: BlockingPool
    let versionClaims: VersionClaims
    let logger: Logger

    /// What happened to an accepted package.
    public struct AcceptedPackage: Sendable {
        /// False: these same bytes were already stored for this version (nothing changed but, for a
        /// held version, the scan).
        public var stored: Bool
        public var summary: Catalog.PackageSummary
        public var state: Catalog.VersionState
        public var manifest: Manifest
        /// The verifier's warnings (an accepted package has no errors).
        public var findings: [Finding]
        public var message: String
    }

    /// Takes the package at `folder/BlobNames.uploadFileName` (a folder from `store.temporaryFolder()`,
    /// which the caller removes): on success the file was moved into the blob store.
    ///
    /// `rebuilding` (the panel's "Build package"): a version of the same number that is a draft —
    /// built and never sent for review, or sent back — is replaced by these bytes, its old manifest
    /// kept for the reviewer. Without it (the API), any other bytes under a stored number are refused.
    ///
    /// The steps, each below by its name: ``verified(folder:audit:)`` (the contained verifier, then
    /// the template's text), ``checkRights(_:manifest:sha:audit:)``, ``claimHere(_:sha:audit:)`` (one
    /// upload of a version at a time on this server), ``claimShared(_:version:sha:audit:)`` (and
    /// across the servers sharing the catalog), then ``store(manifest:findings:digest:temp:actor:rebuilding:audit:)``.
    public func ingest(
        folder: String, by uploader: Catalog.User, rebuilding: Bool = false
    ) async throws
        -> AcceptedPackage
    {
        let audit = Audit(catalog: catalog, actor: uploader.name)
        let (manifest, digest, findings) = try await verified(folder: folder, audit: audit)
        let sha = digest.hex
        try await checkRights(uploader, manifest: manifest, sha: sha, audit: audit)
        let claim = try await claimHere(manifest, sha: sha, audit: audit)
        defer { versionClaims.release(claim) }
        try await claimShared(manifest, version: claim.version, sha: sha, audit: audit)
        do {
            let accepted = try await store(
                manifest: manifest, findings: findings, digest: digest,
                temp: folder + "/" + BlobNames.uploadFileName, actor: uploader.name, rebuilding: rebuilding,
                audit: audit.callAsFunction)
            try? await catalog.releaseVersionClaim(package: manifest.id, version: claim.version, sha256: sha)
            return accepted
        } catch {
            try? await catalog.releaseVersionClaim(package: manifest.id, version: claim.version, sha256: sha)
            throw error
        }
    }

    /// Records what happened to an upload in the audit log, as `actor` (a failure to record is not
    /// the upload's: it is dropped).
    struct Audit: Sendable {
        let catalog: any CatalogStore
        let actor: String

        func callAsFunction(
            _ id: String?, _ version: String?, _ sha: String?, _ action: Catalog.AuditAction, _ detail: String
        ) async {
            _ = try? await catalog.audit(
                actor: actor, action: action, id: id, version: version, sha256: sha, detail: detail)
        }
    }

    /// Step 1: the package verified in the contained child process, valid, and free of the
    /// template's text. Throws (audited) what refuses it.
    func verified(folder: String, audit: Audit) async throws -> (Manifest, SHA256Digest, [Finding]) {
        let valid: Bool, digest: SHA256Digest, reportManifest: Manifest?, findings: [Finding]
        switch try await verify(folder: folder) {
        case .report(let v, let d, let m, let f): (valid, digest, reportManifest, findings) = (v, d, m, f)
        case .failed(let reason):
            let finding = Finding(
                .serverVerifierFailed,
                "\(reason); the package was not stored. If it is a package you built, run 'trailpack verify' on it and report the crash"
            )
            logger.error(
                "the contained verifier failed on an upload",
                metadata: ["reason": "\(TerminalText.escaped(reason))", "by": "\(TerminalText.escaped(audit.actor))"])
            await audit(nil, nil, nil, .uploadRefused, "verifier failed: \(reason)")
            throw ServerError(
                .unprocessableContent, .invalidPackage, "the package could not be verified; nothing was stored",
                findings: [finding])
        }
        guard valid, let manifest = reportManifest else {
            await audit(
                reportManifest?.id, reportManifest?.version, digest.hex, .uploadRefused,
                "\(findings.filter { $0.severity == .error }.count) findings")
            throw ServerError(
                .unprocessableContent, .invalidPackage, "the package is not valid; nothing was stored",
                findings: findings)
        }
        // Text left from `trailpack init`'s template must not reach visitors.
        let template = TemplateText.fields(in: manifest)
        if !template.isEmpty {
            await audit(manifest.id, manifest.version, digest.hex, .uploadRefused, "template text")
            throw ServerError(
                .unprocessableContent, .templateText,
                "the package still holds the template's text in: \(template.joined(separator: ", ")); write the real text in the tour folder, build again and upload that"
            )
        }
        return (manifest, digest, findings)
    }

    /// Step 2: the uploader's rights, before anything is stored or scanned.
    func checkRights(_ uploader: Catalog.User, manifest: Manifest, sha: String, audit: Audit) async throws {
        if let why = try await catalog.uploadRefusal(user: uploader, package: manifest.id, site: manifest.site.id) {
            await audit(manifest.id, manifest.version, sha, .uploadRefused, why)
            throw ServerError(.forbidden, .forbidden, why)
        }
    }

    /// Step 3: one upload of a version at a time on this server. A second upload of other bytes is
    /// refused here, before its bytes are scanned or stored; one of the same bytes waits (woken when
    /// the first lets go, no polling) and then finds them stored.
    func claimHere(_ manifest: Manifest, sha: String, audit: Audit) async throws -> VersionClaims.Claim {
        switch await versionClaims.claim(package: manifest.id, version: manifest.version, sha256: sha) {
        case .claimed(let claim): return claim
        case .otherBytesInProgress:
            throw await refused(manifest, sha: sha, "another upload of this version is in progress", "", audit)
        }
    }

    /// Step 4: the same across servers sharing the catalog: the claim is the catalog's, made before
    /// anything is scanned or stored, so the loser of a race between two servers (2.0 on one, 2.0.0
    /// on the other) leaves no blob behind. Another server's upload of the same bytes gives no
    /// signal here when it ends, so this one asks the catalog again, at growing intervals (50 ms
    /// doubling to 2 s), for at most ``claimLifetime``.
    func claimShared(_ manifest: Manifest, version: String, sha: String, audit: Audit) async throws {
        let catalog = self.catalog
        var interval = Duration.milliseconds(50)
        let deadline = ContinuousClock.now + .seconds(Int64(Self.claimLifetime))
        while true {
            let now = Date().timeIntervalSince1970
            switch try await catalog.claimVersion(
                package: manifest.id, version: version, sha256: sha, now: now, staleAfter: Self.claimLifetime)
            {
            case .claimed: return
            case .otherBytes: break
            case .sameBytes:
                guard ContinuousClock.now < deadline else { break }
                try await Task.sleep(for: interval)
                interval = min(interval * 2, .seconds(2))
                continue
            }
            throw await refused(
                manifest, sha: sha, "another server is storing an upload of this version", " (on another server)",
                audit)
        }
    }

    private func refused(
        _ manifest: Manifest, sha: String, _ detail: String, _ place: String, _ audit: Audit
    ) async -> ServerError {
        await audit(manifest.id, manifest.version, sha, .uploadRefused, detail)
        return ServerError(
            .conflict, .versionExists,
            "another upload of version \(manifest.version) of '\(ServerError.short(manifest.id))' is being stored right now\(place); wait for it to finish and look at the version's state"
        )
    }

    /// How long a claim on a version lasts at most (a server that died holding one loses it then):
    /// an upload of the format's largest package is verified, scanned and stored well within it.
    static let claimLifetime: Double = 3600

    /// The claimed upload's bytes scanned, stored and registered (or a draft's put in place, or a
    /// damaged version's restored).
    private func store(
        manifest: Manifest, findings: [Finding], digest: SHA256Digest, temp: String, actor: String, rebuilding: Bool,
        audit: (String?, String?, String?, Catalog.AuditAction, String) async -> Void
    ) async throws -> AcceptedPackage {
        let (id, version, sha) = (manifest.id, manifest.version, digest.hex)
        var restoring = false
        var replacedSHA: String?
        if let existing = try await catalog.version(package: id, version: version, releasedOnly: false)?.summary {
            let state = try await stored(id, version)
            if existing.sha256 != sha {
                guard rebuilding, existing.version == version, state.status == .draft else {
                    // Nothing stored: the upload was refused before its bytes went anywhere.
                    await audit(id, version, sha, .uploadRefused, "version exists with SHA-256 \(existing.sha256)")
                    throw ServerError(
                        .conflict, .versionExists,
                        Self.versionTaken(
                            id: id, version: version, existing: existing.version, status: existing.status))
                }
                // A draft built again under its number: scanned and stored as a new version's bytes are,
                // then put in its place below.
                replacedSHA = existing.sha256
            } else if state.status == .damaged {
                // The intact bytes of a version taken out of service: stored again, then brought back.
                restoring = true
            } else if state.scanStatus != .held {
                return AcceptedPackage(
                    stored: false, summary: existing, state: state, manifest: manifest, findings: findings,
                    message:
                        "this version is already stored with the same bytes (\(Self.words(state.status))); nothing else changed"
                )
            }
        }
        let verdict = await scans.scan(path: temp, sha256: sha, engine: configuration.scanner)
        if case .infected(let signature) = verdict {
            await audit(id, version, sha, .uploadRefused, "malware: \(signature)")
            throw ServerError(
                .unprocessableContent, .malware, "the malware scan found \(signature); nothing was stored")
        }
        let size = try await pool.run { () -> Int64 in
            var info = stat()
            guard stat(temp, &info) == 0 else {
                throw ServerError.internal(
                    "the upload's temporary file vanished before it was stored (\(String(cString: strerror(errno))))")
            }
            return Int64(info.st_size)
        }
        // Recorded before it is renamed into place: a blob on disk is never unknown to the catalog.
        try await catalog.recordBlob(sha256: sha, size: size)
        let replacing = restoring
        try await blobs.commit(temporary: temp, sha256: digest, size: size, replacing: replacing)
        if restoring {
            let back = try await catalog.restoreDamaged(
                sha256: sha, actor: actor, detail: "the same bytes uploaded again by \(actor)")
            guard let summary = try await catalog.version(package: id, version: version, releasedOnly: false)?.summary
            else {
                throw ServerError.internal(
                    "version \(version) of '\(ServerError.short(id))' vanished from the catalog while it was restored")
            }
            let state = try await stored(id, version)
            logger.notice(
                "a damaged version was restored by an upload of its bytes",
                metadata: ["sha256": "\(sha)", "versions": "\(back.joined(separator: ", "))", "by": "\(actor)"])
            return AcceptedPackage(
                stored: true, summary: summary, state: state, manifest: manifest, findings: findings,
                message:
                    "these bytes were damaged on the server and are stored again: back in service as \(Self.words(state.status))"
            )
        }
        var initial: Catalog.PublishStatus = configuration.approvals == 0 ? .released : .draft
        if case .held = verdict { initial = .draft }
        if let replacedSHA {
            if let why = try await catalog.replaceDraft(
                manifest: manifest, manifestJSON: JSONWriter.string(manifest.jsonValue), sha256: sha, size: size,
                actor: actor, status: initial, replacing: replacedSHA)
            {
                // The bytes stay, recorded ('trailpack admin gc' lists them).
                await audit(id, version, sha, .uploadRefused, why)
                throw ServerError(.conflict, .versionExists, why)
            }
            try await recordVerdict(verdict, id: id, version: version, sha: sha, actor: actor)
            guard let summary = try await catalog.version(package: id, version: version, releasedOnly: false)?.summary
            else {
                throw ServerError.internal(
                    "version \(version) of '\(ServerError.short(id))' vanished from the catalog while it was stored")
            }
            let state = try await stored(id, version)
            return AcceptedPackage(
                stored: true, summary: summary, state: state, manifest: manifest, findings: findings,
                message: "built again as version \(version), in place of the one before (\(Self.words(state.status)))")
        }
        let outcome = try await catalog.register(
            manifest: manifest, manifestJSON: JSONWriter.string(manifest.jsonValue), sha256: sha, size: size,
            actor: actor, status: initial)
        if outcome == .created { try await recordVerdict(verdict, id: id, version: version, sha: sha, actor: actor) }
        if outcome == .unchanged, try await stored(id, version).scanStatus == .held {
            // The same bytes again: the new scan replaces the held one (the scanner may work now).
            let state = MalwareScanner.catalogState(verdict)
            let (status, detail) = (state.status, state.detail)
            try await catalog.recordRescan(package: id, version: version, status: status, detail: detail, actor: actor)
        }
        switch outcome {
        case .created, .unchanged:
            guard let summary = try await catalog.version(package: id, version: version, releasedOnly: false)?.summary
            else {
                throw ServerError.internal(
                    "version \(version) of '\(ServerError.short(id))' vanished from the catalog while it was stored")
            }
            let state = try await stored(id, version)
            let message =
                outcome == .created
                ? "stored as \(Self.words(state.status))"
                : "this version is already stored with the same bytes (\(Self.words(state.status))); nothing else changed"
            return AcceptedPackage(
                stored: outcome == .created, summary: summary, state: state, manifest: manifest, findings: findings,
                message: message)
        case .conflict(let existingVersion, _):
            // Another server's upload of this version won the race (this one's claim is per server);
            // the bytes stay, recorded ('trailpack admin gc' lists them).
            let status = try await catalog.state(package: id, version: existingVersion)?.status ?? .draft
            throw ServerError(
                .conflict, .versionExists,
                Self.versionTaken(id: id, version: version, existing: existingVersion, status: status))
        }
    }

    /// A new version's scan verdict, when it is not clean: held, or not scanned (audited either way).
    func recordVerdict(
        _ verdict: MalwareScanner.Verdict, id: String, version: String, sha: String, actor: String
    ) async throws {
        if case .held(let reason) = verdict {
            try await catalog.setScan(package: id, version: version, status: .held, detail: reason)
            try await catalog.audit(
                actor: actor, action: .scanHeld, id: id, version: version, sha256: sha, detail: reason)
        }
        if case .notScanned = verdict {
            try await catalog.setScan(
                package: id, version: version, status: .notScanned, detail: Catalog.notScannedDetail)
            try await catalog.audit(
                actor: actor, action: .scanSkipped, id: id, version: version, sha256: sha,
                detail: Catalog.notScannedDetail)
        }
    }

    /// A state in the words the messages use.
    static func words(_ status: Catalog.PublishStatus) -> String {
        switch status {
        case .draft: "uploaded, not yet sent for review"
        case .pending: "waiting for review"
        case .ready: "approved, waiting to be released"
        case .released: "released"
        case .withdrawn: "withdrawn"
        case .damaged: "damaged on this server"
        }
    }

    /// Why a version number is taken, as the case is.
    static func versionTaken(id: String, version: String, existing: String, status: Catalog.PublishStatus) -> String {
        let which =
            existing == version
            ? "version \(version)" : "version \(existing) (the same version number as \(version))"
        let what =
            switch status {
            case .draft: "is already uploaded with other bytes (not yet sent for review)"
            case .pending, .ready: "is already uploaded with other bytes, waiting for review"
            case .released: "is already released"
            case .withdrawn: "was released and then withdrawn (a version number is never used twice)"
            case .damaged:
                "is stored with other bytes and was found damaged; an admin brings it back with 'trailpack admin restore'"
            }
        return "\(which) of '\(ServerError.short(id))' \(what); build with a new version number and upload that"
    }

    /// The state of a version the catalog holds (a 500 naming it if it vanished meanwhile).
    private func stored(_ id: String, _ version: String) async throws -> Catalog.VersionState {
        guard let state = try await catalog.state(package: id, version: version) else {
            throw ServerError.internal(
                "version \(version) of '\(ServerError.short(id))' vanished from the catalog while it was stored")
        }
        return state
    }

    /// Verifies `folder`'s upload: in a contained child process when the server has one, else here.
    func verify(folder: String) async throws -> ContainedVerifier.Outcome {
        let contained = configuration.containedVerifier
        return try await childPool.run {
            if let contained { return contained.verify(file: BlobNames.uploadFileName, in: folder) }
            let report = try Verifier.verify(path: folder + "/" + BlobNames.uploadFileName)
            return .report(
                valid: report.isValid, sha256: report.sha256, manifest: report.manifest, findings: report.findings)
        }
    }
}

extension TrailPackServer {
    /// The one way packages enter this server.
    public var intake: PackageIntake {
        PackageIntake(
            catalog: catalog, blobs: store, configuration: configuration, scans: scans, pool: pool,
            childPool: childPool, versionClaims: versionClaims, logger: logger)
    }
}

/// The versions being uploaded right now on this server, by package id and normalised version
/// (`1.0` and `1.0.0` are one claim), with the bytes each upload holds: the loser of a race with
/// other bytes is refused before anything is stored; one with the same bytes waits, suspended until
/// the first lets go, and then claims it in turn (and finds the bytes stored).
public final class VersionClaims: Sendable {
    public struct Claim: Sendable, Hashable {
        let key: String
        /// The version as claimed: trailing zeros dropped (`1.0` and `1.0.0` are `1`).
        let version: String
    }
    /// What `claim` found.
    public enum Outcome: Sendable {
        case claimed(Claim)
        /// Another upload of other bytes holds it.
        case otherBytesInProgress
    }
    private struct Held {
        var sha256: String
        /// Uploads of the same bytes waiting for this one to let go.
        var waiters: [CheckedContinuation<Outcome?, Never>] = []
    }
    private let held = Mutex<[String: Held]>([:])

    public init() {}

    /// The claim on `package`'s `version` for the bytes `sha256`: taken at once, refused when other
    /// bytes hold it, or, when the same bytes do, taken once they let go.
    public func claim(package id: String, version: String, sha256: String) async -> Outcome {
        var normalised = version
        if let parts = PackageVersion(version)?.components {
            // Trailing zeros do not make another version: 1.0 = 1.0.0.
            var trimmed = parts
            while trimmed.count > 1, trimmed.last == 0 { trimmed.removeLast() }
            normalised = trimmed.map(String.init).joined(separator: ".")
        }
        let key = id + "\u{0}" + normalised
        while true {
            // nil: the same bytes held it, and have let go since: try again.
            let outcome: Outcome? = await withCheckedContinuation { waiter in
                let now: Outcome?? = held.withLock { held in
                    switch held[key]?.sha256 {
                    case nil:
                        held[key] = Held(sha256: sha256)
                        return .some(.claimed(Claim(key: key, version: normalised)))
                    case sha256?:
                        held[key]?.waiters.append(waiter)
                        return .none
                    default: return .some(.otherBytesInProgress)
                    }
                }
                if let now { waiter.resume(returning: now) }
            }
            if let outcome { return outcome }
        }
    }

    /// Lets go of `claim`, waking the uploads of the same bytes that wait for it.
    public func release(_ claim: Claim) {
        let waiters = held.withLock { $0.removeValue(forKey: claim.key)?.waiters ?? [] }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}
