import Foundation
import TrailPackCatalog
import TrailPackCore
import TrailPackCrypto
import TrailPackVerifier

/// How a package file becomes a stored version: verified (in a contained child process), checked
/// for template text and for the uploader's rights, compared with what the catalog holds, scanned
/// for malware, stored and registered — every step audited. The API's upload and the Web Control
/// Panel's "Build package" both come here: one implementation.
public struct PackageIntake: Sendable {
    let server: TrailPackServer

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

    /// Takes the package at `folder/BlobStore.uploadFileName` (a folder from `store.temporaryFolder()`,
    /// which the caller removes): on success the file was moved into the blob store.
    public func ingest(folder: String, by uploader: Catalog.User) async throws -> AcceptedPackage {
        let actor = uploader.name
        let temp = folder + "/" + BlobStore.uploadFileName
        let server = self.server
        func audit(
            _ id: String?, _ version: String?, _ sha: String?, _ action: Catalog.AuditAction, _ detail: String
        ) async {
            _ = try? await server.catalogStore.audit(
                actor: actor, action: action, id: id, version: version, sha256: sha, detail: detail)
        }
        let valid: Bool, digest: SHA256Digest, reportManifest: Manifest?, findings: [Finding]
        switch try await verify(folder: folder) {
        case .report(let v, let d, let m, let f): (valid, digest, reportManifest, findings) = (v, d, m, f)
        case .failed(let reason):
            let finding = Finding(
                .serverVerifierFailed,
                "\(reason); the package was not stored. If it is a package you built, run 'trailpack verify' on it and report the crash"
            )
            server.logger.error(
                "the contained verifier failed on an upload",
                metadata: ["reason": "\(TerminalText.escaped(reason))", "by": "\(TerminalText.escaped(actor))"])
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
        let (id, version, sha) = (manifest.id, manifest.version, digest.hex)
        // Text left from `trailpack init`'s template must not reach visitors.
        let template = TemplateText.fields(in: manifest)
        if !template.isEmpty {
            await audit(id, version, sha, .uploadRefused, "template text")
            throw ServerError(
                .unprocessableContent, .templateText,
                "the package still holds the template's text in: \(template.joined(separator: ", ")); write the real text in the tour folder, build again and upload that"
            )
        }
        // Rights, and what the catalog already holds, before anything is stored or scanned.
        let catalog = server.catalogStore
        if let why = try await catalog.uploadRefusal(user: uploader, package: id, site: manifest.site.id) {
            await audit(id, version, sha, .uploadRefused, why)
            throw ServerError(.forbidden, .forbidden, why)
        }
        if let existing = try await catalog.version(package: id, version: version, releasedOnly: false)?.summary {
            if existing.sha256 != sha {
                // Nothing stored: the upload was refused before its bytes went anywhere.
                await audit(id, version, sha, .uploadRefused, "version exists with SHA-256 \(existing.sha256)")
                throw ServerError(
                    .conflict, .versionExists,
                    "version \(version) of '\(ServerError.short(id))' is already stored with SHA-256 \(existing.sha256); publish a new version number instead"
                )
            }
            let state = try await stored(id, version)
            if state.scanStatus != .held {
                return AcceptedPackage(
                    stored: false, summary: existing, state: state, manifest: manifest, findings: findings,
                    message:
                        "this version is already stored with the same bytes (\(state.status)); nothing else changed")
            }
        }
        let verdict = await server.scans.scan(path: temp, sha256: sha, engine: server.configuration.scanner)
        if case .infected(let signature) = verdict {
            await audit(id, version, sha, .uploadRefused, "malware: \(signature)")
            throw ServerError(
                .unprocessableContent, .malware, "the malware scan found \(signature); nothing was stored")
        }
        let size = try await server.blocking { _ -> Int64 in
            var info = stat()
            guard stat(temp, &info) == 0 else {
                throw ServerError.internal(
                    "the upload's temporary file vanished before it was stored (\(String(cString: strerror(errno))))")
            }
            return Int64(info.st_size)
        }
        // Recorded before it is renamed into place: a blob on disk is never unknown to the catalog.
        try await catalog.recordBlob(sha256: sha, size: size)
        try await server.blocking { try $0.store.commit(temporary: temp, sha256: digest) }
        var initial: Catalog.PublishStatus = server.configuration.approvals == 0 ? .released : .draft
        if case .held = verdict { initial = .draft }
        let outcome = try await catalog.register(
            manifest: manifest, manifestJSON: JSONWriter.string(manifest.jsonValue), sha256: sha, size: size,
            actor: actor, status: initial)
        if case .held(let reason) = verdict, outcome == .created {
            try await catalog.setScan(package: id, version: version, status: .held, detail: reason)
            try await catalog.audit(
                actor: actor, action: .scanHeld, id: id, version: version, sha256: sha, detail: reason)
        }
        if case .notScanned = verdict, outcome == .created {
            try await catalog.setScan(
                package: id, version: version, status: .notScanned, detail: Catalog.notScannedDetail)
            try await catalog.audit(
                actor: actor, action: .scanSkipped, id: id, version: version, sha256: sha,
                detail: Catalog.notScannedDetail)
        }
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
                ? "stored as \(state.status)"
                : "this version is already stored with the same bytes (\(state.status)); nothing else changed"
            return AcceptedPackage(
                stored: outcome == .created, summary: summary, state: state, manifest: manifest, findings: findings,
                message: message)
        case .conflict(let existingVersion, let existing):
            // Another upload of this version won the race; the bytes stay, recorded ('trailpack admin gc' lists them).
            let same =
                existingVersion == version
                ? "version \(existingVersion)" : "version \(existingVersion) (the same version as \(version))"
            throw ServerError(
                .conflict, .versionExists,
                "\(same) of '\(ServerError.short(id))' is already published with SHA-256 \(existing); publish a new version number instead"
            )
        }
    }

    /// The state of a version the catalog holds (a 500 naming it if it vanished meanwhile).
    private func stored(_ id: String, _ version: String) async throws -> Catalog.VersionState {
        guard let state = try await server.catalogStore.state(package: id, version: version) else {
            throw ServerError.internal(
                "version \(version) of '\(ServerError.short(id))' vanished from the catalog while it was stored")
        }
        return state
    }

    /// Verifies `folder`'s upload: in a contained child process when the server has one, else here.
    func verify(folder: String) async throws -> ContainedVerifier.Outcome {
        let contained = server.configuration.containedVerifier
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Swift.Result {
                        if let contained { return contained.verify(file: BlobStore.uploadFileName, in: folder) }
                        let report = try Verifier.verify(path: folder + "/" + BlobStore.uploadFileName)
                        return .report(
                            valid: report.isValid, sha256: report.sha256, manifest: report.manifest,
                            findings: report.findings)
                    })
            }
        }
    }
}

extension TrailPackServer {
    /// The one way packages enter this server.
    public var intake: PackageIntake { PackageIntake(server: self) }
}
