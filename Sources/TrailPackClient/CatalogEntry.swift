import Foundation
import TrailPackCrypto

/// One released (or, with a token, reviewable) version of a package as the server's catalog
/// lists it: what a client needs to download, check and confirm it.
public struct CatalogEntry: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var description: String
    public var park: String
    public var site: String
    public var version: String
    /// The package's length in bytes.
    public var size: Int64
    /// The whole-file SHA-256, as 64 lowercase hex digits.
    public var sha256: String
    /// Paths (relative to the server) of the download, the manifest preview and the confirmation.
    public var download: String
    public var manifest: String
    public var confirm: String

    /// The SHA-256 as a digest. A malformed one is an error, never a check turned off.
    public func digest() throws(ClientError) -> SHA256Digest {
        guard sha256.utf8.count == 64, let digest = SHA256Digest(hex: sha256) else {
            throw ClientError(.badResponse, "the server lists \(id) \(version) with a malformed SHA-256 '\(sha256.prefix(80))'")
        }
        return digest
    }
}

/// A site and how many packages it publishes.
public struct CatalogSite: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var packages: Int
}

/// A package's versions: the newest first.
public struct CatalogVersions: Sendable, Equatable, Codable {
    public var latest: CatalogEntry
    public var versions: [CatalogEntry]
}

/// A reviewer's signature of a version, as the server serves it.
public struct ReviewerSignature: Sendable, Equatable, Codable {
    public var reviewer: String
    public var minisig: String
}
