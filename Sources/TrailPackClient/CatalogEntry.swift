import Foundation
import TrailPackCrypto

/// One released (or, with a token, reviewable) version of a package as the server's catalog
/// lists it: what a client needs to download, check and confirm it.
public struct CatalogEntry: Sendable, Equatable, Codable {
    /// The package's id, a reverse-DNS name (`gov.usda.fs.willamette.santiam-wagon-road`).
    public var id: String
    /// The tour's name, for people.
    public var name: String
    /// The tour's description, for people.
    public var description: String
    /// The park or forest the tour is in.
    public var park: String
    /// The id of the site that publishes the package.
    public var site: String
    /// The version, compared numerically component by component (`1.10.0` is newer than `1.9.2`).
    public var version: String
    /// The package's length in bytes.
    public var size: Int64
    /// The whole-file SHA-256, as 64 lowercase hex digits.
    public var sha256: String
    /// Paths (relative to the server) of the download, the manifest preview and the confirmation.
    public var download: String
    /// The path of the manifest preview.
    public var manifest: String
    /// The path a client posts to once the package is installed.
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
    /// The site's id.
    public var id: String
    /// The site's name, for people.
    public var name: String
    /// How many released packages the site publishes.
    public var packages: Int
}

/// A package's versions: the newest first.
public struct CatalogVersions: Sendable, Equatable, Codable {
    /// The newest version the caller may download.
    public var latest: CatalogEntry
    /// Every version the caller may download, newest first.
    public var versions: [CatalogEntry]
}

/// A reviewer's signature of a version, as the server serves it.
public struct ReviewerSignature: Sendable, Equatable, Codable {
    /// The reviewer's key id.
    public var reviewer: String
    /// The signature, in minisign's text format.
    public var minisig: String
}
