import Foundation
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackVerifier

/// Checks a reviewer's minisign signature of a stored version against the key registered for them:
/// one service, made once, for the API's approvals and the control panel's.
public struct ApprovalSignatures: Sendable {
    let catalog: any CatalogStore
    let blobs: any BlobStore
    /// The prehash reads the whole package: blocking work.
    let pool: BlockingPool

    public init(catalog: any CatalogStore, blobs: any BlobStore, pool: BlockingPool) {
        self.catalog = catalog
        self.blobs = blobs
        self.pool = pool
    }

    /// Throws `ServerError` (`no-public-key`, `not-found`, `bad-signature` with its findings) unless
    /// `text` is `user`'s valid signature of the version's package.
    public func check(_ text: String, package id: String, version: String, user: Catalog.User) async throws {
        guard let keyText = user.publicKey, let key = try? Minisign.PublicKey(fileText: keyText) else {
            throw ServerError(
                .unprocessableContent, .noPublicKey,
                "'\(user.name)' has no public key registered; add one with 'trailpack admin user add --public-key'")
        }
        guard let record = try await catalog.version(package: id, version: version, releasedOnly: false) else {
            throw ServerError.notFound("no version \(version) of '\(id)'")
        }
        let (summary, manifestText) = (record.summary, record.manifest)
        let digest = try BlobNames.digest(summary.sha256)
        // The prehash reads the whole package: on the blocking pool, not the cooperative one.
        let path = try await blobs.localFile(for: digest)
        let prehash = try await pool.run { try Minisign.prehash(path: path) }
        let manifest = ManifestReader.read(Array(manifestText.utf8)).manifest
        let result = SignatureCheck.check(
            signatures: [.init(name: "approval", text: text)], trustedKeys: [key], threshold: 1, prehash: prehash,
            manifest: manifest, sha256: digest)
        guard result.findings.isEmpty else {
            throw ServerError(
                .unprocessableContent, .badSignature,
                "the approval's signature is not \(user.name)'s valid signature of this package",
                findings: result.findings)
        }
    }
}
