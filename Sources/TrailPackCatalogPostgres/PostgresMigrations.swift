import Logging
import PostgresNIO
import TrailPackCatalogModel

/// The catalog's schema in PostgreSQL, as the migrations that make it, in order: the SQLite
/// schema's meaning (`SQLiteCatalog`'s migrations v1 to v10) with PostgreSQL's types. A migration,
/// once released, is never changed: `schema_migrations` records the identifiers of those a database
/// ran, and only the new ones run, under one advisory lock so that servers starting together
/// migrate once.
///
/// What differs from SQLite, and why:
/// - The users' table is `users` (`user` is reserved).
/// - Every text column sorts and compares byte by byte (`COLLATE "C"`), as SQLite's do: ids,
///   versions and pages come in the same order whatever the database's locale.
/// - The audit log's id is an identity column; triggers refuse UPDATE, DELETE and TRUNCATE.
/// - `signInFailure` has an id (SQLite's rowid), so that one failure can be taken back.
/// - Triggers on `site`, `blob` and `packageVersion` (not its confirmation counters or scan detail)
///   notify `trailpack_catalog` with the changing server's name, and mark the transaction, so that
///   every server's ``PostgresCatalog/publicChangeCount`` moves. A column added to packageVersion
///   later is added to `packageVersionPublicUpdate`'s list when public answers show it.
enum PostgresMigrations {
    struct Migration {
        let id: String
        let statements: [String]
    }

    static let all: [Migration] = [
        Migration(
            id: "v1",
            statements: [
                #"CREATE TABLE site (id TEXT COLLATE "C" PRIMARY KEY, name TEXT COLLATE "C" NOT NULL, adminNamed BOOLEAN NOT NULL DEFAULT FALSE)"#,
                #"CREATE TABLE blob (sha256 TEXT COLLATE "C" PRIMARY KEY, size BIGINT NOT NULL, storedAt TEXT COLLATE "C" NOT NULL)"#,
                #"""
                CREATE TABLE packageVersion (
                    packageID TEXT COLLATE "C" NOT NULL,
                    version TEXT COLLATE "C" NOT NULL,
                    versionKey TEXT COLLATE "C" NOT NULL,
                    siteID TEXT COLLATE "C" NOT NULL REFERENCES site(id),
                    siteName TEXT COLLATE "C" NOT NULL DEFAULT '',
                    name TEXT COLLATE "C" NOT NULL,
                    park TEXT COLLATE "C" NOT NULL,
                    description TEXT COLLATE "C" NOT NULL,
                    sha256 TEXT COLLATE "C" NOT NULL REFERENCES blob(sha256),
                    size BIGINT NOT NULL,
                    manifest TEXT COLLATE "C" NOT NULL,
                    status TEXT COLLATE "C" NOT NULL,
                    uploadedBy TEXT COLLATE "C" NOT NULL,
                    createdAt TEXT COLLATE "C" NOT NULL,
                    confirmMatch BIGINT NOT NULL DEFAULT 0,
                    confirmMismatch BIGINT NOT NULL DEFAULT 0,
                    scanStatus TEXT COLLATE "C" NOT NULL DEFAULT 'clean',
                    scanDetail TEXT COLLATE "C" NOT NULL DEFAULT '',
                    statusBeforeDamage TEXT COLLATE "C",
                    PRIMARY KEY (packageID, version)
                )
                """#,
                "CREATE INDEX packageVersionSite ON packageVersion(siteID, status, packageID)",
                "CREATE INDEX packageVersionSha ON packageVersion(sha256)",
                "CREATE INDEX packageVersionLatest ON packageVersion(packageID, status, versionKey)",
                #"""
                CREATE TABLE auditLog (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    at TEXT COLLATE "C" NOT NULL,
                    actor TEXT COLLATE "C" NOT NULL,
                    action TEXT COLLATE "C" NOT NULL,
                    packageID TEXT COLLATE "C",
                    version TEXT COLLATE "C",
                    sha256 TEXT COLLATE "C",
                    detail TEXT COLLATE "C" NOT NULL DEFAULT ''
                )
                """#,
                """
                CREATE FUNCTION auditLogAppendOnly() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    RAISE EXCEPTION 'the audit log is append-only';
                END
                $$
                """,
                "CREATE TRIGGER auditLogNoUpdate BEFORE UPDATE ON auditLog FOR EACH ROW EXECUTE FUNCTION auditLogAppendOnly()",
                "CREATE TRIGGER auditLogNoDelete BEFORE DELETE ON auditLog FOR EACH ROW EXECUTE FUNCTION auditLogAppendOnly()",
                "CREATE TRIGGER auditLogNoTruncate BEFORE TRUNCATE ON auditLog FOR EACH STATEMENT EXECUTE FUNCTION auditLogAppendOnly()",
                #"""
                CREATE TABLE users (
                    name TEXT COLLATE "C" PRIMARY KEY,
                    role TEXT COLLATE "C" NOT NULL CHECK (role IN ('publisher', 'reviewer', 'admin')),
                    publicKey TEXT COLLATE "C",
                    createdAt TEXT COLLATE "C" NOT NULL,
                    removedAt TEXT COLLATE "C",
                    passwordHash TEXT COLLATE "C"
                )
                """#,
                #"""
                CREATE TABLE token (
                    id TEXT COLLATE "C" PRIMARY KEY,
                    userName TEXT COLLATE "C" NOT NULL REFERENCES users(name),
                    hash BYTEA NOT NULL,
                    createdAt TEXT COLLATE "C" NOT NULL,
                    revokedAt TEXT COLLATE "C"
                )
                """#,
                #"""
                CREATE TABLE approval (
                    packageID TEXT COLLATE "C" NOT NULL,
                    version TEXT COLLATE "C" NOT NULL,
                    reviewer TEXT COLLATE "C" NOT NULL REFERENCES users(name),
                    at TEXT COLLATE "C" NOT NULL,
                    signature TEXT COLLATE "C",
                    PRIMARY KEY (packageID, version, reviewer)
                )
                """#,
                #"""
                CREATE TABLE siteGrant (
                    userName TEXT COLLATE "C" NOT NULL REFERENCES users(name),
                    siteID TEXT COLLATE "C" NOT NULL,
                    at TEXT COLLATE "C" NOT NULL,
                    PRIMARY KEY (userName, siteID)
                )
                """#,
                #"""
                CREATE TABLE panelSession (
                    idHash TEXT COLLATE "C" PRIMARY KEY,
                    userName TEXT COLLATE "C" NOT NULL,
                    csrfToken TEXT COLLATE "C" NOT NULL,
                    credential TEXT COLLATE "C" NOT NULL,
                    created DOUBLE PRECISION NOT NULL,
                    lastSeen DOUBLE PRECISION NOT NULL
                )
                """#,
                "CREATE INDEX panelSessionUser ON panelSession(userName)",
                #"""
                CREATE TABLE panelSessionNote (
                    idHash TEXT COLLATE "C" NOT NULL,
                    kind TEXT COLLATE "C" NOT NULL,
                    text TEXT COLLATE "C" NOT NULL,
                    PRIMARY KEY (idHash, kind)
                )
                """#,
                #"""
                CREATE TABLE signInFailure (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    key TEXT COLLATE "C" NOT NULL,
                    at DOUBLE PRECISION NOT NULL
                )
                """#,
                "CREATE INDEX signInFailureKey ON signInFailure(key, at)",
                #"CREATE TABLE confirmationSeen (download TEXT COLLATE "C" PRIMARY KEY, at DOUBLE PRECISION NOT NULL)"#,
                #"""
                CREATE TABLE confirmationWindow (
                    address TEXT COLLATE "C" PRIMARY KEY,
                    start DOUBLE PRECISION NOT NULL,
                    count BIGINT NOT NULL
                )
                """#,
                """
                CREATE FUNCTION catalogPublicChange() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM set_config('trailpack.public_changed', '1', true);
                    PERFORM pg_notify('trailpack_catalog', COALESCE(current_setting('trailpack.instance', true), ''));
                    RETURN NULL;
                END
                $$
                """,
                "CREATE TRIGGER sitePublicChange AFTER INSERT OR UPDATE OR DELETE ON site FOR EACH ROW EXECUTE FUNCTION catalogPublicChange()",
                "CREATE TRIGGER siteTruncate AFTER TRUNCATE ON site FOR EACH STATEMENT EXECUTE FUNCTION catalogPublicChange()",
                "CREATE TRIGGER blobPublicChange AFTER INSERT OR UPDATE OR DELETE ON blob FOR EACH ROW EXECUTE FUNCTION catalogPublicChange()",
                "CREATE TRIGGER blobTruncate AFTER TRUNCATE ON blob FOR EACH STATEMENT EXECUTE FUNCTION catalogPublicChange()",
                """
                CREATE TRIGGER packageVersionPublicChange AFTER INSERT OR DELETE ON packageVersion
                FOR EACH ROW EXECUTE FUNCTION catalogPublicChange()
                """,
                """
                CREATE TRIGGER packageVersionPublicUpdate AFTER UPDATE OF
                    packageID, version, versionKey, siteID, siteName, name, park, description, sha256, size, manifest,
                    status, uploadedBy, createdAt, scanStatus, statusBeforeDamage
                ON packageVersion FOR EACH ROW EXECUTE FUNCTION catalogPublicChange()
                """,
                "CREATE TRIGGER packageVersionTruncate AFTER TRUNCATE ON packageVersion FOR EACH STATEMENT EXECUTE FUNCTION catalogPublicChange()",
            ]),
        Migration(
            // SQLite's v8-site-frame: the frame the panel's map opens on for a new tour of a site.
            id: "v8-site-frame",
            statements: [
                "ALTER TABLE site ADD COLUMN frameSouth DOUBLE PRECISION",
                "ALTER TABLE site ADD COLUMN frameWest DOUBLE PRECISION",
                "ALTER TABLE site ADD COLUMN frameNorth DOUBLE PRECISION",
                "ALTER TABLE site ADD COLUMN frameEast DOUBLE PRECISION",
            ]),
        Migration(
            // SQLite's v9-replaced-versions: the bytes a draft version held before it was built again.
            id: "v9-replaced-versions",
            statements: [
                #"""
                CREATE TABLE replacedVersion (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    packageID TEXT COLLATE "C" NOT NULL,
                    version TEXT COLLATE "C" NOT NULL,
                    sha256 TEXT COLLATE "C" NOT NULL,
                    size BIGINT NOT NULL,
                    manifest TEXT NOT NULL,
                    replacedAt TEXT COLLATE "C" NOT NULL,
                    replacedBy TEXT COLLATE "C" NOT NULL
                )
                """#,
                "CREATE INDEX replacedVersionByVersion ON replacedVersion(packageID, version)",
            ]),
        Migration(
            // SQLite's v10-user-email: where the panel's notices are mailed.
            id: "v10-user-email",
            statements: [#"ALTER TABLE users ADD COLUMN email TEXT COLLATE "C""#]),
        Migration(
            // SQLite's v11-version-claims: the versions being uploaded right now, across servers.
            id: "v11-version-claims",
            statements: [
                #"""
                CREATE TABLE versionClaim (
                    packageID TEXT COLLATE "C" NOT NULL,
                    version TEXT COLLATE "C" NOT NULL,
                    sha256 TEXT COLLATE "C" NOT NULL,
                    claimedAt DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (packageID, version)
                )
                """#
            ]),
    ]

    /// Runs the migrations `connection`'s database has not run, in order, each in a transaction of
    /// its own, while holding the migration lock (another server starting waits, then finds them run).
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.query("SELECT pg_advisory_lock(\(AdvisoryLock.migration))", logger: logger).collect()
        do {
            try await runMissing(connection, logger: logger)
        } catch {
            _ = try? await connection.query("SELECT pg_advisory_unlock(\(AdvisoryLock.migration))", logger: logger)
                .collect()
            throw error
        }
        _ = try await connection.query("SELECT pg_advisory_unlock(\(AdvisoryLock.migration))", logger: logger).collect()
    }

    private static func runMissing(_ connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.query(
            #"CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT COLLATE "C" PRIMARY KEY, appliedAt TEXT NOT NULL)"#,
            logger: logger
        ).collect()
        let done = Set(
            try await connection.query("SELECT id FROM schema_migrations", logger: logger).collect().map {
                try $0.decode(String.self)
            })
        for migration in all where !done.contains(migration.id) {
            logger.info("catalog: migrating PostgreSQL schema", metadata: ["migration": "\(migration.id)"])
            _ = try await connection.query("BEGIN", logger: logger).collect()
            do {
                for statement in migration.statements {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).collect()
                }
                _ = try await connection.query(
                    "INSERT INTO schema_migrations (id, appliedAt) VALUES (\(migration.id), \(Catalog.timestamp()))",
                    logger: logger
                ).collect()
                _ = try await connection.query("COMMIT", logger: logger).collect()
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger).collect()
                throw error
            }
        }
    }
}
