import GRDB
import TrailPackCatalogModel

/// The catalog's schema, as the migrations that make it, in order. A migration, once released, is
/// never changed: a database records the identifiers of those it ran, and runs only the new ones.
extension SQLiteCatalog {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE site (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL);
                    CREATE TABLE blob (sha256 TEXT PRIMARY KEY NOT NULL, size INTEGER NOT NULL, storedAt TEXT NOT NULL);
                    CREATE TABLE packageVersion (
                        packageID TEXT NOT NULL,
                        version TEXT NOT NULL,
                        versionKey TEXT NOT NULL,
                        siteID TEXT NOT NULL REFERENCES site(id),
                        name TEXT NOT NULL,
                        park TEXT NOT NULL,
                        description TEXT NOT NULL,
                        sha256 TEXT NOT NULL REFERENCES blob(sha256),
                        size INTEGER NOT NULL,
                        manifest TEXT NOT NULL,
                        status TEXT NOT NULL,
                        uploadedBy TEXT NOT NULL,
                        createdAt TEXT NOT NULL,
                        confirmMatch INTEGER NOT NULL DEFAULT 0,
                        confirmMismatch INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (packageID, version)
                    );
                    CREATE INDEX packageVersionSite ON packageVersion(siteID, status, packageID);
                    CREATE INDEX packageVersionSha ON packageVersion(sha256);
                    CREATE TABLE auditLog (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        at TEXT NOT NULL,
                        actor TEXT NOT NULL,
                        action TEXT NOT NULL,
                        packageID TEXT,
                        version TEXT,
                        sha256 TEXT,
                        detail TEXT NOT NULL DEFAULT ''
                    );
                    CREATE TRIGGER auditLogNoUpdate BEFORE UPDATE ON auditLog BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                    CREATE TRIGGER auditLogNoDelete BEFORE DELETE ON auditLog BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                    """)
        }
        m.registerMigration("v2-workflow") { db in
            try db.execute(
                sql: """
                    CREATE TABLE user (name TEXT PRIMARY KEY NOT NULL, role TEXT NOT NULL CHECK (role IN ('publisher', 'reviewer', 'admin')),
                                       publicKey TEXT, createdAt TEXT NOT NULL);
                    CREATE TABLE token (id TEXT PRIMARY KEY NOT NULL, userName TEXT NOT NULL REFERENCES user(name), hash BLOB NOT NULL,
                                        createdAt TEXT NOT NULL, revokedAt TEXT);
                    CREATE TABLE approval (packageID TEXT NOT NULL, version TEXT NOT NULL, reviewer TEXT NOT NULL REFERENCES user(name),
                                           at TEXT NOT NULL, signature TEXT, PRIMARY KEY (packageID, version, reviewer));
                    ALTER TABLE packageVersion ADD COLUMN scanStatus TEXT NOT NULL DEFAULT 'clean';
                    ALTER TABLE packageVersion ADD COLUMN scanDetail TEXT NOT NULL DEFAULT '';
                    """)
        }
        m.registerMigration("v3-latest-index") { db in
            // The list endpoint finds each package's newest released version: index exactly that.
            try db.execute(sql: "CREATE INDEX packageVersionLatest ON packageVersion(packageID, status, versionKey)")
        }
        m.registerMigration("v4-release-rules") { db in
            // Public site names come only from released versions or from an admin; a publisher
            // uploads only to the sites granted to them; a removed user keeps their history.
            try db.execute(
                sql: """
                    CREATE TABLE siteGrant (userName TEXT NOT NULL REFERENCES user(name), siteID TEXT NOT NULL, at TEXT NOT NULL,
                                            PRIMARY KEY (userName, siteID));
                    ALTER TABLE site ADD COLUMN adminNamed INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE packageVersion ADD COLUMN siteName TEXT NOT NULL DEFAULT '';
                    UPDATE packageVersion SET siteName = (SELECT name FROM site WHERE site.id = packageVersion.siteID);
                    ALTER TABLE user ADD COLUMN removedAt TEXT;
                    """)
        }
        m.registerMigration("v5-passwords") { db in
            // The control panel's sign-in: a scrypt hash text (PasswordHash), never the password.
            try db.execute(sql: "ALTER TABLE user ADD COLUMN passwordHash TEXT")
        }
        m.registerMigration("v6-restore") { db in
            // What a version was before it was taken out of service as damaged, so that the intact
            // bytes brought back (`admin restore`, or the same upload again) return it to that state.
            try db.execute(sql: "ALTER TABLE packageVersion ADD COLUMN statusBeforeDamage TEXT")
        }
        m.registerMigration("v7-shared-state") { db in
            // What every server sharing a catalog must agree on, kept here rather than in one
            // server's memory: the panel's sessions (by the SHA-256 of their id), their notes for the
            // next page, the sign-in throttle's failures, and the confirmations' counting windows.
            try db.execute(
                sql: """
                    CREATE TABLE panelSession (idHash TEXT PRIMARY KEY NOT NULL, userName TEXT NOT NULL, csrfToken TEXT NOT NULL,
                                               credential TEXT NOT NULL, created REAL NOT NULL, lastSeen REAL NOT NULL);
                    CREATE INDEX panelSessionUser ON panelSession(userName);
                    CREATE TABLE panelSessionNote (idHash TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL,
                                                   PRIMARY KEY (idHash, kind));
                    CREATE TABLE signInFailure (key TEXT NOT NULL, at REAL NOT NULL);
                    CREATE INDEX signInFailureKey ON signInFailure(key, at);
                    CREATE TABLE confirmationSeen (download TEXT PRIMARY KEY NOT NULL, at REAL NOT NULL);
                    CREATE TABLE confirmationWindow (address TEXT PRIMARY KEY NOT NULL, start REAL NOT NULL, count INTEGER NOT NULL);
                    """)
        }
        m.registerMigration("v8-site-frame") { db in
            // The frame the control panel's map opens on for a new tour of a site, set by an admin
            // (all four edges, or none).
            try db.execute(
                sql: """
                    ALTER TABLE site ADD COLUMN frameSouth REAL;
                    ALTER TABLE site ADD COLUMN frameWest REAL;
                    ALTER TABLE site ADD COLUMN frameNorth REAL;
                    ALTER TABLE site ADD COLUMN frameEast REAL;
                    """)
        }
        m.registerMigration("v9-replaced-versions") { db in
            // The bytes a draft version held before it was built again under its number (a version
            // sent back by a reviewer, fixed): kept so that the reviewer sees what changed.
            try db.execute(
                sql: """
                    CREATE TABLE replacedVersion (packageID TEXT NOT NULL, version TEXT NOT NULL, sha256 TEXT NOT NULL,
                                                  size INTEGER NOT NULL, manifest TEXT NOT NULL, replacedAt TEXT NOT NULL,
                                                  replacedBy TEXT NOT NULL);
                    CREATE INDEX replacedVersionByVersion ON replacedVersion(packageID, version);
                    """)
        }
        m.registerMigration("v10-user-email") { db in
            // Where the panel's notices are mailed (`serve --smtp`): optional, one per user.
            try db.execute(sql: "ALTER TABLE user ADD COLUMN email TEXT")
        }
        m.registerMigration("v11-version-claims") { db in
            // The versions being uploaded right now, by normalised version: claimed before the bytes
            // are stored, so a losing upload stores nothing (`claimVersion`).
            try db.execute(
                sql: """
                    CREATE TABLE versionClaim (packageID TEXT NOT NULL, version TEXT NOT NULL, sha256 TEXT NOT NULL,
                                               claimedAt REAL NOT NULL, PRIMARY KEY (packageID, version))
                    """)
        }
        return m
    }
}
