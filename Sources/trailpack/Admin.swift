import ArgumentParser
import Foundation
import TrailPackCatalog
import TrailPackCrypto
import TrailPackServer

struct Admin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the server's accounts, tokens, sites and stored packages (on its data folder).",
        discussion: """
            Roles: a publisher uploads a package version (to the sites granted to them), opens its publish \
            request and releases it once approved; a reviewer approves or denies requests; an admin can do all of that and withdraw a \
            released version. Tokens are random, shown once, and stored only as hashes.

            Examples:
              trailpack admin --data ./data user add maria --role publisher
              trailpack admin --data ./data user add ken --role reviewer --public-key ken.pub
              trailpack admin --data ./data token issue maria
              trailpack admin --data ./data grant maria willamette-sweet-home
              trailpack admin --data ./data site add willamette-sweet-home "Sweet Home Ranger District"
              trailpack admin --data ./data token revoke 3f9c0a1b2c4d
              trailpack admin --data ./data gc --dry-run
              trailpack admin --data ./data scrub
              trailpack admin --data ./data rescan --held --clamav-db /var/lib/clamav
              trailpack admin --data ./data backup /backup/trailpack-2026-11-22

            Accounts and tokens can be changed while the server runs (each change is one catalog \
            transaction), and so can a backup be made; gc and scrub, which move files, need the server stopped.

            Exit codes: 0 done, 1 gc found orphans in --dry-run or scrub found damaged packages, 2 usage error (no such user, token or site, a user that exists), \
            3 the data folder cannot be used.
            """,
        subcommands: [UserCommand.self, TokenCommand.self, SiteCommand.self, Grant.self, Revoke.self, GC.self, Scrub.self, Backup.self, Rescan.self])

    @OptionGroup var options: Options

    struct Options: ParsableArguments {
        @Option(help: "The server's data folder.")
        var data: String

        @Flag(help: "Make the data folder if it does not exist (otherwise a missing one is refused).")
        var create = false

        func folder(_ access: DataFolder.Access) throws -> DataFolder {
            do { return try DataFolder(path: data, create: create, access: access) } catch let e as ServerError { throw CLIError.io(e.message) }
        }

        func catalog() throws -> Catalog {
            let folder = try folder(.shared)
            do { return try Catalog(path: folder.catalogPath) } catch { throw CLIError.io("cannot open the catalog in '\(data)': \(error)") }
        }
    }

    /// Runs a catalog change, turning the catalog's refusals into plain usage errors.
    static func change(_ body: () throws -> Void) throws {
        do { try body() } catch let e as CatalogError { throw CLIError.usage("\(e)") } catch let e as CLIError { throw e } catch {
            throw CLIError.io("the catalog refused the change: \(error)")
        }
    }

    enum RoleChoice: String, ExpressibleByArgument, CaseIterable {
        case publisher, reviewer, admin
        var role: Catalog.Role { Catalog.Role(rawValue: rawValue)! }
    }

    struct UserCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "user", abstract: "Add, remove or list users, or change a role.",
                                                        subcommands: [Add.self, Remove.self, List.self, RoleCommand.self])

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add a user with a role.")
            @OptionGroup var options: Options
            @Argument(help: "The user's name.") var name: String
            @Option(help: "The user's role.") var role: RoleChoice
            @Option(name: .customLong("public-key"), help: "The user's minisign public key file (.pub), for signed approvals.") var publicKey: String?

            func run() throws {
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }) else {
                    throw CLIError.usage("a user name is letters, digits, '.', '_' and '-'; '\(name)' is not")
                }
                var key: String?
                if let publicKey {
                    guard let text = try? String(contentsOfFile: publicKey, encoding: .utf8) else { throw CLIError.io("cannot read '\(publicKey)'") }
                    do { _ = try Minisign.PublicKey(fileText: text) } catch {
                        if text.contains("secret key") || text.split(separator: "\n").contains(where: { $0.hasPrefix("RWRTY") || $0.hasPrefix("RWQAAEIy") }) {
                            throw CLIError.usage("'\(publicKey)' is a secret key: never hand it to the server; give the public key (the .pub file made by 'trailpack keygen') instead")
                        }
                        throw CLIError.usage("'\(publicKey)' is not a minisign public key (\(error)); give the .pub file made by 'trailpack keygen'")
                    }
                    key = text
                }
                try Admin.change { try options.catalog().addUser(name: name, role: role.role, publicKey: key) }
                CLI.out("added \(name) as \(role.rawValue)\n")
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a user: their tokens are revoked, their history stays.")
            @OptionGroup var options: Options
            @Argument(help: "The user's name.") var name: String
            func run() throws {
                try Admin.change { try options.catalog().removeUser(name: name) }
                CLI.out("removed \(name); their tokens are revoked\n")
            }
        }

        struct RoleCommand: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "role", abstract: "Change a user's role.")
            @OptionGroup var options: Options
            @Argument(help: "The user's name.") var name: String
            @Argument(help: "The new role: publisher, reviewer or admin.") var role: RoleChoice
            func run() throws {
                try Admin.change { try options.catalog().setRole(name: name, role: role.role) }
                CLI.out("\(name) is now \(role.rawValue)\n")
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List users, with their grants.")
            @OptionGroup var options: Options
            func run() throws {
                let catalog = try options.catalog()
                let grants = try catalog.grants()
                for u in try catalog.users() {
                    let sites = grants.filter { $0.user == u.name }.map(\.site)
                    CLI.out("\(u.name)\t\(u.role.rawValue)\(u.publicKey == nil ? "" : "\tsigning key")\(sites.isEmpty ? "" : "\tsites: " + sites.joined(separator: ","))\n")
                }
            }
        }
    }

    struct TokenCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "token", abstract: "Issue, list or revoke API tokens.", subcommands: [Issue.self, List.self, Revoke.self])

        struct Issue: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Issue a token for a user; it is printed once.")
            @OptionGroup var options: Options
            @Argument(help: "The user.") var user: String
            func run() throws {
                var issued: (id: String, token: String) = ("", "")
                try Admin.change { issued = try options.catalog().issueToken(user: user) }
                FileHandle.standardError.write(Data("token \(issued.id) for \(user); it is shown only now — store it safely:\n".utf8))
                CLI.out(issued.token + "\n")
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List tokens (ids, never secrets).")
            @OptionGroup var options: Options
            func run() throws {
                for t in try options.catalog().tokens() {
                    CLI.out("\(t.id)\t\(t.user)\tissued \(t.createdAt)\(t.revokedAt.map { "\trevoked \($0)" } ?? "\tactive")\n")
                }
            }
        }

        struct Revoke: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a token by its id.")
            @OptionGroup var options: Options
            @Argument(help: "The token id (the part after 'tp_').") var id: String
            func run() throws {
                guard try options.catalog().revokeToken(id: id) else { throw CLIError.usage("no active token '\(id)'; list them with 'trailpack admin token list'") }
                CLI.out("revoked token \(id)\n")
            }
        }
    }

    struct SiteCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "site", abstract: "Add or rename a site (its public name; a release never replaces an admin's name).",
            subcommands: [Add.self, Rename.self])

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add a site with its public name.")
            @OptionGroup var options: Options
            @Argument(help: "The site id (as in the manifests' site.id).") var id: String
            @Argument(help: "The public name.") var name: String
            func run() throws {
                guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("the site's name must not be empty") }
                try Admin.change { try options.catalog().addSite(id: id, name: name) }
                CLI.out("added site \(id): \(name)\n")
            }
        }

        struct Rename: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Change a site's public name.")
            @OptionGroup var options: Options
            @Argument(help: "The site id.") var id: String
            @Argument(help: "The new public name.") var name: String
            func run() throws {
                guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("the site's name must not be empty") }
                try Admin.change { try options.catalog().renameSite(id: id, name: name) }
                CLI.out("renamed site \(id): \(name)\n")
            }
        }
    }

    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a publisher upload packages of a site.")
        @OptionGroup var options: Options
        @Argument(help: "The publisher.") var user: String
        @Argument(help: "The site id.") var site: String
        func run() throws {
            try Admin.change { try options.catalog().grant(user: user, site: site) }
            CLI.out("\(user) may publish to \(site)\n")
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take back a publisher's grant for a site.")
        @OptionGroup var options: Options
        @Argument(help: "The publisher.") var user: String
        @Argument(help: "The site id.") var site: String
        func run() throws {
            var changed = false
            try Admin.change { changed = try options.catalog().revokeGrant(user: user, site: site) }
            guard changed else { throw CLIError.usage("'\(user)' has no grant for '\(site)'") }
            CLI.out("\(user) may no longer publish to \(site)\n")
        }
    }

    struct GC: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gc",
            abstract: "Move blobs the catalog does not know, or no version uses, into quarantine/ (never deleting them).",
            discussion: """
                An orphan is a file in blobs/ that no catalog entry names (what an older catalog restored next \
                to newer blobs leaves), or a blob no package version refers to (the bytes of an upload refused \
                as a replaced version). gc moves each into quarantine/ (with a note saying why) and logs it in \
                the audit log; nothing is deleted. Needs the server stopped.
                """)
        @OptionGroup var options: Options
        @Flag(name: .customLong("dry-run"), help: "Only list the orphans (exit 1 when there are any).")
        var dryRun = false

        func run() throws {
            let folder = try options.folder(dryRun ? .shared : .exclusive)
            let catalog: Catalog
            do { catalog = try Catalog(path: folder.catalogPath) } catch { throw CLIError.io("cannot open the catalog in '\(options.data)': \(error)") }
            let known = try catalog.blobHashes()
            let onDisk = folder.blobsOnDisk()
            let unused = Set(try catalog.unusedBlobs())
            let orphans = onDisk.filter { !known.contains($0) }.map { ($0, "not in the catalog") }
                + onDisk.filter { unused.contains($0) }.map { ($0, "no package version refers to it") }
            for (sha, why) in orphans {
                if dryRun {
                    CLI.out("orphan \(folder.root)/blobs/\(sha.prefix(2))/\(sha).zip: \(why)\n")
                } else {
                    let moved: String
                    do { moved = try folder.quarantine(sha256: sha, reason: "\(why); moved by 'trailpack admin gc'") } catch let e as ServerError { throw CLIError.io(e.message) }
                    if unused.contains(sha) { try catalog.forgetUnusedBlob(sha256: sha) }
                    try catalog.audit(actor: "admin-cli", action: "gc-quarantine", id: nil, version: nil, sha256: sha, detail: "\(why); moved to \(moved)")
                    CLI.out("moved \(sha) (\(why)) to \(moved)\n")
                }
            }
            CLI.note("\(orphans.count) orphan\(orphans.count == 1 ? "" : "s")\(dryRun ? " (nothing moved: --dry-run)" : orphans.isEmpty ? "" : " moved to \(folder.root)/quarantine")")
            if dryRun && !orphans.isEmpty { throw ExitCode(1) }
        }
    }

    struct Scrub: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-hash every stored package; quarantine and take out of service the damaged ones.",
            discussion: """
                Reads every blob the catalog holds (streaming), compares its size and SHA-256 with the catalog, and \
                moves a damaged or missing one out of service: the file into quarantine/, its versions marked damaged \
                (no longer listed or served), an audit entry. Progress goes to standard error. Exit 1 when any is \
                damaged. Needs the server stopped.
                """)
        @OptionGroup var options: Options

        func run() throws {
            let folder = try options.folder(.exclusive)
            let catalog: Catalog
            do { catalog = try Catalog(path: folder.catalogPath) } catch { throw CLIError.io("cannot open the catalog in '\(options.data)': \(error)") }
            let blobs = try catalog.storedBlobs(inService: true)
            var damaged = 0
            for (n, blob) in blobs.enumerated() {
                let path = "\(folder.root)/blobs/\(blob.sha256.prefix(2))/\(blob.sha256).zip"
                CLI.note("[\(n + 1)/\(blobs.count)] \(blob.sha256)")
                var problem: String?
                do {
                    let result = try FileHashing.sha256(path: path)
                    if result.size != blob.size {
                        problem = "the stored file has \(result.size) bytes, the catalog says \(blob.size)"
                    } else if result.digest.hex != blob.sha256 {
                        problem = "the stored file's SHA-256 is \(result.digest.hex)"
                    }
                } catch {
                    problem = "the stored file cannot be read: \(error)"
                }
                guard let problem else { continue }
                damaged += 1
                var detail = problem
                if FileManager.default.fileExists(atPath: path) {
                    do { detail += "; moved to \(try folder.quarantine(sha256: blob.sha256, reason: problem))" } catch let e as ServerError { throw CLIError.io(e.message) }
                }
                let versions = try catalog.markDamaged(sha256: blob.sha256, reason: detail + " (found by 'trailpack admin scrub')", actor: "admin-cli")
                CLI.out("damaged \(blob.sha256): \(detail)\(versions.isEmpty ? "" : "; out of service: " + versions.joined(separator: ", "))\n")
            }
            CLI.note("\(blobs.count) package\(blobs.count == 1 ? "" : "s") checked, \(damaged) damaged")
            if damaged > 0 { throw ExitCode(1) }
        }
    }

    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a consistent snapshot of the data folder to a new folder, restorable by 'serve --data'.",
            discussion: """
                The catalog is copied through SQLite's online backup API, then the packages it names are hard-linked \
                (copied when DEST is on another file system; packages are never changed in place, so a link is a \
                safe copy). Works while the server runs. DEST must not exist or be empty.
                """)
        @OptionGroup var options: Options
        @Argument(help: "The new folder to write the snapshot to.") var destination: String

        func run() throws {
            let folder = try options.folder(.shared)
            let catalog: Catalog
            do { catalog = try Catalog(path: folder.catalogPath) } catch { throw CLIError.io("cannot open the catalog in '\(options.data)': \(error)") }
            let fm = FileManager.default
            if fm.fileExists(atPath: destination), !((try? fm.contentsOfDirectory(atPath: destination)) ?? ["?"]).isEmpty {
                throw CLIError.usage("'\(destination)' exists and is not empty; name a new folder for the backup")
            }
            let target: DataFolder
            do { target = try DataFolder(path: destination, create: true, access: .exclusive) } catch let e as ServerError { throw CLIError.io(e.message) }
            do { try catalog.backup(to: target.catalogPath) } catch { throw CLIError.io("cannot write the catalog backup to '\(target.catalogPath)': \(error)") }
            let snapshot: Catalog
            do { snapshot = try Catalog(path: target.catalogPath) } catch { throw CLIError.io("cannot read back the catalog backup: \(error)") }
            var linked = 0, copied = 0, missing = 0
            for blob in try snapshot.storedBlobs() {
                let relative = "blobs/\(blob.sha256.prefix(2))/\(blob.sha256).zip"
                let source = folder.root + "/" + relative, copy = target.root + "/" + relative
                guard fm.fileExists(atPath: source) else { missing += 1; CLI.note("missing in the data folder (not copied): \(source)"); continue }
                try? fm.createDirectory(atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                if link(source, copy) == 0 { linked += 1; continue }
                do { try fm.copyItem(atPath: source, toPath: copy); copied += 1 } catch { throw CLIError.io("cannot copy '\(source)' to '\(copy)': \(error)") }
            }
            CLI.out("backup written to \(target.root): the catalog, \(linked) packages hard-linked, \(copied) copied\(missing > 0 ? ", \(missing) missing" : "")\n")
        }
    }

    struct Rescan: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scan stored versions for malware again (after the scanner was fixed).",
            discussion: """
                Scans the versions held because the scanner could not vouch for them (--held), one version (ID VERSION), \
                or every stored version, and records each new verdict in the catalog and the audit log. Works while the \
                server runs. Exit 1 when any version stays held or is found infected.
                """)
        @OptionGroup var options: Options
        @Flag(help: "Only the versions whose scan is held.") var held = false
        @Argument(help: "A package id (with VERSION: rescan that one version).") var id: String?
        @Argument(help: "The version.") var version: String?
        @Option(name: .customLong("clamav-db"), help: "A folder of ClamAV signature databases for clamscan (default: clamscan's own).") var clamavDB: String?
        @Option(name: .customLong("clamd-socket"), help: "Scan with clamdscan through this clamd socket instead of clamscan.") var clamdSocket: String?

        func run() throws {
            guard (id == nil) == (version == nil) else { throw CLIError.usage("give both a package id and a version, or neither (with --held: every held version)") }
            let folder = try options.folder(.shared)
            let catalog: Catalog
            do { catalog = try Catalog(path: folder.catalogPath) } catch { throw CLIError.io("cannot open the catalog in '\(options.data)': \(error)") }
            var targets = try catalog.scanTargets(heldOnly: held)
            if let id, let version {
                targets = targets.filter { $0.id == id && $0.version == version }
                guard !targets.isEmpty else { throw CLIError.usage("no stored version \(version) of '\(id)'\(held ? " that is held" : "")") }
            }
            let scanner = MalwareScanner(engine: clamdSocket.map { .clamd(socket: $0) } ?? .clamscan(database: clamavDB))
            var bad = 0
            for t in targets {
                let path = "\(folder.root)/blobs/\(t.sha256.prefix(2))/\(t.sha256).zip"
                let (status, detail) = MalwareScanner.catalogState(scanner.scan(path))
                try catalog.recordRescan(package: t.id, version: t.version, status: status, detail: detail, actor: "admin-cli")
                if status == "held" || status == "infected" { bad += 1 }
                CLI.out("\(t.id) \(t.version): \(t.scanStatus) → \(status)\(detail.isEmpty ? "" : " (\(detail))")\n")
            }
            CLI.note("\(targets.count) version\(targets.count == 1 ? "" : "s") scanned, \(bad) held or infected")
            if bad > 0 { throw ExitCode(1) }
        }
    }
}
