/// One released (or, with a token, reviewable) version of a package as the server's catalog
/// lists it (the wire type: the server encodes it, the client decodes it): what a client needs to download, check and confirm it.
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

    /// An entry with these fields.
    public init(
        id: String, name: String, description: String, park: String, site: String, version: String, size: Int64,
        sha256: String,
        download: String, manifest: String, confirm: String
    ) {
        (self.id, self.name, self.description, self.park, self.site, self.version) = (
            id, name, description, park, site, version
        )
        (self.size, self.sha256, self.download, self.manifest, self.confirm) = (
            size, sha256, download, manifest, confirm
        )
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

    /// A site with these fields.
    public init(id: String, name: String, packages: Int) { (self.id, self.name, self.packages) = (id, name, packages) }
}

/// A package's versions: the newest first.
public struct CatalogVersions: Sendable, Equatable, Codable {
    /// The newest version the caller may download.
    public var latest: CatalogEntry
    /// Every version the caller may download, newest first.
    public var versions: [CatalogEntry]

    /// The versions, newest first, and the newest.
    public init(latest: CatalogEntry, versions: [CatalogEntry]) { (self.latest, self.versions) = (latest, versions) }
}

/// A reviewer's signature of a version, as the server serves it.
public struct ReviewerSignature: Sendable, Equatable, Codable {
    /// The reviewer's key id.
    public var reviewer: String
    /// The signature, in minisign's text format.
    public var minisig: String

    /// A signature with these fields.
    public init(reviewer: String, minisig: String) { (self.reviewer, self.minisig) = (reviewer, minisig) }
}

/// `GET /v1/sites`: the sites with released packages.
public struct CatalogSites: Sendable, Equatable, Codable {
    /// The sites, by id.
    public var sites: [CatalogSite]
    /// The list of `sites`.
    public init(sites: [CatalogSite]) { self.sites = sites }
}

/// `GET /v1/sites/{site}/packages`: one page of a site's packages.
public struct CatalogPage: Sendable, Equatable, Codable {
    /// The site's id.
    public var site: String
    /// The newest released version of each package on this page.
    public var packages: [CatalogEntry]
    /// The URL of the next page, or nil on the last.
    public var next: String?
    /// A page with these fields.
    public init(site: String, packages: [CatalogEntry], next: String?) {
        (self.site, self.packages, self.next) = (site, packages, next)
    }

    /// Encodes `next` as null on the last page (never left out).
    public func encode(to encoder: any Encoder) throws {
        // `next` is always present: null on the last page (the documented shape).
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(site, forKey: .site)
        try c.encode(packages, forKey: .packages)
        try c.encode(next, forKey: .next)
    }
}

/// `GET /v1/packages/{id}/versions/{version}/signatures`: the reviewers' signatures of a released version.
public struct ReviewerSignatures: Sendable, Equatable, Codable {
    /// The reviewers' signatures.
    public var signatures: [ReviewerSignature]
    /// The list of `signatures`.
    public init(signatures: [ReviewerSignature]) { self.signatures = signatures }
}
