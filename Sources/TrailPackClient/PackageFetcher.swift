import Foundation
import TrailPackCore
import TrailPackCrypto
import TrailPackVerifier

/// The design's download flow, step by step: read the package's entry from the catalog, refuse
/// a rollback, download with resume, check length and whole-file SHA-256 (against the catalog
/// and the server's `Repr-Digest`), verify the package in full, check the reviewers' signatures
/// against trusted keys, install atomically, and confirm to the server. On a damaged download
/// the file is deleted and the error says to try again.
public struct PackageFetcher: Sendable {
    /// The server's catalog API.
    public var client: CatalogClient
    /// Where packages are downloaded and installed.
    public var library: PackageLibrary
    /// Trusted reviewer or publisher keys; empty to skip signature checks.
    public var trustedKeys: [Minisign.PublicKey]
    /// How many distinct trusted keys must have signed.
    public var threshold: Int
    /// How many times a broken connection is retried (resuming each time).
    public var retries: Int
    /// Whether a newer version of an installed package may be put together by part (only the
    /// entries that changed are fetched; see ``PackageUpdater``). The result is checked exactly as a
    /// full download; anything unexpected falls back to one.
    public var updateByPart = true

    /// A fetcher that downloads through `client` into `library`.
    ///
    /// - Parameters:
    ///   - client: the server's catalog API.
    ///   - library: where to download and install.
    ///   - trustedKeys: reviewers' public keys; with none, signatures are not checked.
    ///   - threshold: how many distinct trusted keys must have signed the version.
    ///   - retries: how many times a broken download is resumed before the fetch gives up.
    public init(
        client: CatalogClient, library: PackageLibrary, trustedKeys: [Minisign.PublicKey] = [], threshold: Int = 1,
        retries: Int = 5
    ) {
        self.client = client
        self.library = library
        self.trustedKeys = trustedKeys
        self.threshold = threshold
        self.retries = retries
    }

    /// What a fetch did.
    public struct Outcome: Sendable {
        /// The package now installed (or already installed before).
        public var installed: InstalledPackage
        /// True when that exact version (same bytes) was installed already: nothing was downloaded.
        public var alreadyInstalled: Bool
        /// The verifier's report (nil when nothing was downloaded).
        public var report: VerificationReport?
        /// Whether the server agreed with the SHA-256 sent in the confirmation (nil if it could not be asked).
        public var confirmed: Bool?
        /// What the update by part cost, when the package was put together that way.
        public var update: PackageUpdater.Report?
        /// Why an update by part was given up for the full download (nil when none was tried, or it worked).
        public var updateFallback: String?
    }

    /// A stage of the fetch, for progress displays.
    public enum Stage: Sendable, Equatable {
        case resolving
        case downloading(DownloadProgress)
        case verifying
        case checkingSignatures
        case installing
        case confirming
    }

    /// Fetches `version` of `id` (the newest when nil) into the library.
    public func fetch(
        id: String, version: String? = nil, progress: @escaping @Sendable (Stage) -> Void = { _ in }
    ) async throws(ClientError) -> Outcome {
        progress(.resolving)
        let entry = try await client.entry(id: id, version: version)
        guard entry.id == id else {
            throw ClientError(.badResponse, "asked for \(id), the server answered with \(entry.id)")
        }
        let expected = try entry.digest()
        let previous = try library.installed(id)
        if let previous {
            if let refusal = Self.rollback(entry: entry, installed: previous) { throw refusal }
            if previous.version == entry.version, previous.sha256 == entry.sha256,
                FileManager.default.fileExists(atPath: library.path(of: previous))
            {
                guard !trustedKeys.isEmpty else {
                    return Outcome(installed: previous, alreadyInstalled: true, report: nil, confirmed: nil)
                }
                // Keys were asked for: the installed copy must pass them now, as a new download would.
                progress(.verifying)
                let path = library.path(of: previous)
                let report = try verify(path, expected: expected, what: "the installed")
                guard report.sha256 == expected, report.isValid, let manifest = report.manifest else {
                    throw ClientError(
                        .damaged,
                        "the installed copy of \(id) \(entry.version) ('\(path)') no longer passes its checks; remove the folder '\(library.folder)/\(id)' and fetch again"
                    )
                }
                progress(.checkingSignatures)
                var installed = previous
                installed.signers = try await checkSignatures(
                    entry: entry, report: report, manifest: manifest, partial: nil)
                return Outcome(installed: installed, alreadyInstalled: true, report: report, confirmed: nil)
            }
        }
        try library.prepare()
        let partial = library.partialPath(id: entry.id, version: entry.version)
        var update: PackageUpdater.Report?
        var updateFallback: String?
        // By part, from the installed version — unless a full download of this version is under way.
        if updateByPart, let previous, FileManager.default.fileExists(atPath: library.path(of: previous)),
            !FileManager.default.fileExists(atPath: partial + ".state")
        {
            progress(.downloading(DownloadProgress(received: 0, total: entry.size)))
            do {
                update = try await PackageUpdater(client: client).rebuild(
                    installed: library.path(of: previous), entry: entry, output: partial)
                progress(.downloading(DownloadProgress(received: entry.size, total: entry.size)))
            } catch {
                updateFallback = error.reason
            }
        }
        var reprDigest: String?
        if update == nil {
            let download = ResumableDownload(client: client, entry: entry, partial: partial, retries: retries) {
                progress(.downloading($0))
            }
            reprDigest = try await download.run()
        }

        progress(.verifying)
        if let reprDigest, let served = Self.sha256(fromReprDigest: reprDigest), !(served == expected) {
            library.discard(partial: partial)
            throw ClientError(
                .damaged,
                "the server's Repr-Digest (\(served.hex)) is not the catalog's SHA-256 for \(id) \(entry.version); the download was deleted — try again later, and tell the server's operator if it persists"
            )
        }
        let report = try verify(partial, expected: expected, what: "the download")
        if !(report.sha256 == expected) {
            library.discard(partial: partial)
            _ = try? await client.confirm(entry, sha256: report.sha256.hex)  // operators count damaged downloads
            throw ClientError(
                .damaged,
                "the download of \(id) \(entry.version) is damaged: its SHA-256 is \(report.sha256.hex), the catalog says \(entry.sha256); it was deleted — fetch again"
            )
        }
        guard report.isValid, let manifest = report.manifest else {
            library.discard(partial: partial)
            let first = report.findings.first { $0.severity == .error }.map { ": \($0.description)" } ?? ""
            throw ClientError(
                .invalid,
                "\(id) \(entry.version) is not a valid package (\(report.findings.filter { $0.severity == .error }.count) errors)\(first); it was deleted"
            )
        }
        guard manifest.id == entry.id, PackageVersion(manifest.version) == PackageVersion(entry.version) else {
            library.discard(partial: partial)
            throw ClientError(
                .invalid,
                "the catalog lists \(entry.id) \(entry.version) but the package is \(manifest.id) \(manifest.version); it was deleted"
            )
        }

        var signers: [String] = []
        if !trustedKeys.isEmpty {
            progress(.checkingSignatures)
            signers = try await checkSignatures(entry: entry, report: report, manifest: manifest, partial: partial)
        }

        progress(.installing)
        // Another fetch may have installed a newer version meanwhile.
        let current = try library.installed(id)
        if let current, let refusal = Self.rollback(entry: entry, installed: current) {
            library.discard(partial: partial)
            throw refusal
        }
        let installed = try library.install(partial: partial, entry: entry, signers: signers, previous: current)
        progress(.confirming)
        let confirmed = try? await client.confirm(entry, sha256: report.sha256.hex)
        return Outcome(
            installed: installed, alreadyInstalled: false, report: report, confirmed: confirmed, update: update,
            updateFallback: updateFallback)
    }

    /// The verifier's report on a package file (with the signed hash when keys are trusted).
    func verify(_ path: String, expected: SHA256Digest, what: String) throws(ClientError) -> VerificationReport {
        do {
            return try Verifier.verify(
                path: path, options: .init(expectedSHA256: expected, prehash: !trustedKeys.isEmpty))
        } catch {
            throw ClientError(.io, "cannot read \(what) '\(path)': \(error)", cause: error)
        }
    }

    /// The reviewers' signatures of `entry` from the server, checked against the trusted keys and
    /// the threshold; returns the valid signers. On a refusal a download (`partial`) is discarded.
    func checkSignatures(
        entry: CatalogEntry, report: VerificationReport, manifest: Manifest, partial: String?
    ) async throws(ClientError) -> [String] {
        guard let prehash = report.blake2b512 else {
            throw ClientError(.signature, "the package's signed hash was not computed")
        }
        let served = try await client.signatures(id: entry.id, version: entry.version)
        let inputs = served.map { SignatureCheck.Input(name: "\($0.reviewer).minisig", text: $0.minisig) }
        let result = SignatureCheck.check(
            signatures: inputs, trustedKeys: trustedKeys, threshold: threshold,
            prehash: prehash, manifest: manifest, sha256: report.sha256)
        guard !result.findings.hasErrors, result.validSigners.count >= threshold else {
            if let partial { library.discard(partial: partial) }
            let why = result.findings.first { $0.severity == .error }?.message ?? "too few valid signatures"
            let what =
                partial == nil ? "the installed copy is kept, but do not use it as signed" : "it was not installed"
            throw ClientError(
                .signature,
                "\(entry.id) \(entry.version) has \(result.validSigners.count) valid signature(s) from trusted keys; \(threshold) needed (\(why)); \(what)"
            )
        }
        return result.validSigners
    }

    /// A refusal when `entry` is older than what was installed, or the same version with other bytes.
    static func rollback(entry: CatalogEntry, installed: InstalledPackage) -> ClientError? {
        guard let new = PackageVersion(entry.version), let highest = PackageVersion(installed.highestVersion) else {
            return ClientError(
                .rollback, "cannot compare version '\(entry.version)' with the installed '\(installed.highestVersion)'")
        }
        if new < highest {
            return ClientError(
                .rollback,
                "the server offers \(entry.id) \(entry.version), older than \(installed.highestVersion), which this library already accepted; refusing a downgrade"
            )
        }
        if new == PackageVersion(installed.version), entry.sha256 != installed.sha256 {
            return ClientError(
                .rollback,
                "the server offers \(entry.id) \(entry.version) with other bytes (SHA-256 \(entry.sha256)) than the installed \(installed.version) (\(installed.sha256)); a version never changes — refusing it"
            )
        }
        return nil
    }

    /// The SHA-256 in an RFC 9530 `Repr-Digest: sha-256=:<base64>:` header.
    static func sha256(fromReprDigest header: String) -> SHA256Digest? {
        for item in header.split(separator: ",") {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "sha-256" else { continue }
            let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: ":"))
            guard let data = Data(base64Encoded: value), data.count == 32 else { return nil }
            return SHA256Digest(hex: data.map { String(format: "%02x", $0) }.joined())
        }
        return nil
    }
}
