import TrailPackCatalogModel
import TrailPackCore

/// A version's place in the workflow, as the admin API answers it: state, approvals, the scan's
/// verdict, and what can happen next, in words with the request to send.
struct VersionStateResponse: Encodable, Sendable {
    struct Scan: Encodable, Sendable {
        var status: Catalog.ScanStatus
        var detail: String
    }
    var status: Catalog.PublishStatus
    var uploadedBy: String
    var approvals: [String]
    var required: Int
    var scan: Scan
    var next: [String]
}

/// `POST /v1/admin/packages`: what happened to the upload.
struct UploadResponse: Encodable, Sendable {
    var stored: Bool
    var message: String
    var package: CatalogEntry
    var state: VersionStateResponse
}

/// `POST …/confirm`: whether the client's copy is intact, and whether this confirmation counted.
struct ConfirmResponse: Encodable, Sendable {
    var match: Bool
    var expected: String
    var counted: Bool
    var message: String
}

/// `GET /v1/admin/confirmations`.
struct ConfirmationsResponse: Encodable, Sendable {
    var confirmations: [Catalog.Confirmations]
}

/// `GET /v1/admin/audit`: entries with `package`, `version`, `sha256` null where they do not apply.
struct AuditResponse: Encodable, Sendable {
    struct Entry: Encodable, Sendable {
        var entry: Catalog.AuditEntry
        enum Keys: String, CodingKey { case id, at, actor, action, package, version, sha256, detail }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(entry.id, forKey: .id)
            try c.encode(entry.at, forKey: .at)
            try c.encode(entry.actor, forKey: .actor)
            try c.encode(entry.action, forKey: .action)
            try c.encode(entry.packageID, forKey: .package)
            try c.encode(entry.version, forKey: .version)
            try c.encode(entry.sha256, forKey: .sha256)
            try c.encode(entry.detail, forKey: .detail)
        }
    }
    var entries: [Entry]
}
