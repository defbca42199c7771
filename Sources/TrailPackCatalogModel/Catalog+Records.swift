extension Catalog {
    /// One page of a site's released packages.
    public struct Page: Sendable {
        /// The packages on this page, by id.
        public var packages: [PackageSummary]
        /// The id to ask for the next page after; nil on the last page.
        public var next: String?

        /// A value with these fields.
        public init(packages: [PackageSummary], next: String?) {
            self.packages = packages
            self.next = next
        }
    }

    /// A version as the catalog holds it: its summary and the manifest's text.
    public struct RegisteredVersion: Sendable {
        /// The version's summary (id, version, size, SHA-256, status, …).
        public var summary: PackageSummary
        /// The package's `manifest.json`, as registered.
        public var manifest: String

        /// A value with these fields.
        public init(summary: PackageSummary, manifest: String) {
            self.summary = summary
            self.manifest = manifest
        }
    }

    /// A client's confirmation, judged: the SHA-256 the catalog expects and whether the client's matched.
    public struct Confirmation: Sendable, Equatable {
        /// The released version's SHA-256.
        public var expected: String
        /// Whether the client's SHA-256 is that one.
        public var match: Bool

        /// A value with these fields.
        public init(expected: String, match: Bool) {
            self.expected = expected
            self.match = match
        }
    }

    /// A token just issued: its id (for listing and revoking) and the token itself, shown once.
    public struct IssuedToken: Sendable {
        /// The token's id.
        public var id: String
        /// `tp_<id>_<secret>`: only its hash is stored.
        public var token: String

        /// A value with these fields.
        public init(id: String, token: String) {
            self.id = id
            self.token = token
        }
    }

    /// What signing in needs to know of a user.
    public struct SignInRecord: Sendable {
        /// The user.
        public var user: User
        /// The stored password hash; nil when no password is set.
        public var passwordHash: String?

        /// A value with these fields.
        public init(user: User, passwordHash: String?) {
            self.user = user
            self.passwordHash = passwordHash
        }
    }
}
