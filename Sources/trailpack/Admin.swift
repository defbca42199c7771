import ArgumentParser
import Foundation
import Logging
import TrailPackBlocking
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackMap
import TrailPackPanel
import TrailPackServer

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Manage the server's users, tokens, sites and packages.",
        usage: "trailpack admin --data <dir> [<options>] <subcommand>",
        discussion: """
            Roles: a publisher uploads a package version (to the sites granted to them), opens its publish \
            request and releases it once approved; a reviewer approves or denies requests; an admin can do all of that and withdraw a \
            released version. Tokens are random, shown once, and stored only as hashes.

            Examples:
              trailpack admin --data ./data user add maria --role publisher
              trailpack admin --data ./data user add ken --role reviewer \\
                --public-key ken.pub
              trailpack admin --data ./data token issue maria
              trailpack admin --data ./data grant maria sweet-home
              trailpack admin --data ./data site add sweet-home "Sweet Home District"
              trailpack admin --data ./data token revoke 3f9c0a1b2c4d
              trailpack admin --data ./data gc --dry-run
              trailpack admin --data ./data scrub
              trailpack admin --data ./data rescan --held --clamav-db /var/lib/clamav
              trailpack admin --data ./data backup /backup/trailpack-2026-11-22

            Accounts and tokens can be changed while the server runs (each change is one catalog \
            transaction), and so can a backup be made; gc and scrub, which move files, need the server stopped \
            on a data folder of its own. With a shared catalog and bucket (--catalog, --blobs: the same options \
            as every server's, and a --data folder for this command's own files) they run while the servers \
            serve, one at a time whichever machine starts them.

            Exit codes: 0 done, 1 gc found orphans in --dry-run or scrub found damaged packages, 2 usage error (no such user, token or site, a user that exists), \
            3 the data folder cannot be used.
            """,
        subcommands: [
            UserCommand.self, TokenCommand.self, SiteCommand.self, Grant.self, Revoke.self, GC.self, Scrub.self,
            Backup.self, Restore.self, Rescan.self,
        ])

    @OptionGroup var options: Options

    struct Options: ParsableArguments {
        @Option(help: "The server's data folder (its catalog and packages, or with --catalog/--blobs its local files).")
        var data: String

        @Flag(help: "Make the data folder if it does not exist (otherwise a missing one is refused).")
        var create = false

        @Flag(help: "Print the result as JSON (the report shape of every command; 'results' lists what was done).")
        var json = false

        @OptionGroup var storeOptions: StoreOptions

        func folder(_ access: DataFolder.Access) throws -> DataFolder {
            do { return try DataFolder(path: data, create: create, access: access) } catch let e as ServerError {
                throw CLIError.io(e.message)
            }
        }

        /// The catalog (SQLite in the data folder, or the shared PostgreSQL of `--catalog`).
        func catalog() async throws -> any CatalogStore { try await stores(.shared).catalog }

        /// The data folder, the catalog and the blob store, as `serve` opens them with the same options.
        /// With a shared catalog the data folder is this command's own (a server keeps its lock on
        /// its own), so it is opened shared; gc and scrub take the catalog's maintenance lock instead.
        func stores(_ access: DataFolder.Access) async throws -> OpenedStores {
            let locations = try storeOptions.locations()
            let folder = try folder(storeOptions.catalog == nil ? access : .shared)
            do {
                let opened = try await OpenedStores.open(
                    locations, folder: folder, pool: BlockingPool(name: "trailpack-admin", threads: 4),
                    logger: Logger(label: "trailpack.admin"))
                // A shared catalog's connections run for as long as the command does (it ends the process).
                for service in opened.services { Task { try? await service.run() } }
                return opened
            } catch let e as ServerError { throw CLIError.io(e.message) } catch let e as CatalogError {
                throw CLIError.io(e.message)
            } catch { throw CLIError.io("cannot open the catalog or the packages of '\(data)': \(error)") }
        }
    }

    // With --json, what a command did is gathered here and printed once by `finish` (one command
    // runs per process, on the main thread: hence nonisolated(unsafe)).
    nonisolated(unsafe) static var results: [JSONValue] = []

    /// A line for people on standard output, or with --json one item of the report's `results`.
    static func say(_ options: Options, _ text: String, _ item: [String: JSONValue]) {
        if options.json {
            results.append(.object(item.sorted { $0.key < $1.key }.map { JSONMember($0.key, $0.value) }))
        } else {
            CLI.out(text + "\n")
        }
    }

    /// With --json, the report: `action` (such as "user add") and `results`.
    static func finish(_ options: Options, _ action: String, ok: Bool = true) {
        guard options.json else { return }
        Report.print(
            ok: ok, findings: [], [JSONMember("action", .string(action)), JSONMember("results", .array(results))])
    }

    /// Runs a catalog change, turning the catalog's refusals into plain usage errors.
    static func change(_ body: () async throws -> Void) async throws {
        do { try await body() } catch let e as CatalogError { throw CLIError.usage("\(e)") } catch let e as CLIError {
            throw e
        } catch {
            throw CLIError.io("the catalog refused the change: \(error)")
        }
    }

    enum RoleChoice: String, ExpressibleByArgument, CaseIterable {
        case publisher, reviewer, admin
        var role: Catalog.Role { Catalog.Role(rawValue: rawValue)! }
    }

    struct UserCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "user", abstract: "Add, remove or list users, or change a role, a password or a signing key.",
            subcommands: [
                Add.self, Remove.self, List.self, RoleCommand.self, PasswordCommand.self, KeyCommand.self,
                EmailCommand.self,
            ])

        /// The text of the minisign public key file at `path`, checked; a secret key is refused.
        static func publicKeyText(_ path: String) throws -> String {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw CLIError.io("cannot read '\(path)'")
            }
            do { _ = try Minisign.PublicKey(fileText: text) } catch {
                if Minisign.looksLikeSecretKey(text) {
                    throw CLIError.usage(
                        "'\(path)' is a secret key: never hand it to the server; give the public key (the .pub file made by 'trailpack keygen') instead"
                    )
                }
                throw CLIError.usage(
                    "'\(path)' is not a minisign public key (\(error)); give the .pub file made by 'trailpack keygen'")
            }
            return text
        }

        struct KeyCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "key",
                abstract: "Give a user a new signing key (a lost or replaced one), or take it away with --remove.",
                discussion:
                    "Approvals they sign from now on are checked against the new key; those already recorded keep theirs."
            )
            @OptionGroup var options: Options
            @Argument(help: "The user's name.") var name: String
            @Option(name: .customLong("public-key"), help: "The user's new minisign public key file (.pub).")
            var publicKey: String?
            @Flag(help: "Take the user's signing key away.") var remove = false
            func run() async throws {
                guard (publicKey != nil) != remove else {
                    throw CLIError.usage("give either --public-key FILE (the new key) or --remove (no key)")
                }
                let key = try publicKey.map(UserCommand.publicKeyText)
                try await Admin.change { try await options.catalog().setPublicKey(name: name, publicKey: key) }
                Admin.say(
                    options, Catalog.publicKeyDetail(name, key),
                    ["user": .string(name), "signingKey": .bool(key != nil)])
                Admin.finish(options, "user key")
            }
        }

        struct EmailCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "email",
                abstract: "Set where a user's review notices are mailed (serve --smtp), or take it away with --remove.")
            @OptionGroup var options: Options
            @Argument(help: "The user's name.") var name: String
            @Argument(help: "The mail address, such as ken@example.org.") var address: String?
            @Flag(help: "Send the user no mail.") var remove = false
            func run() async throws {
                guard (address != nil) != remove else {
                    throw CLIError.usage("give either an ADDRESS or --remove (no mail)")
                }
                if let address, !SMTPMail.isAddress(address) {
                    throw CLIError.usage(
                        "'\(TerminalText.escaped(address))' is not a plain mail address (such as ken@example.org)")
                }
                try await Admin.change { try await options.catalog().setEmail(name: name, email: address) }
                Admin.say(
                    options, Catalog.emailDetail(name, address),
                    ["user": .string(name), "email": address.map { .string($0) } ?? .null])
                Admin.finish(options, "user email")
            }
        }

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a user with a role.")
            @OptionGroup var options: Options
            @Argument(help: "The user's name.") var name: String
            @Option(help: "The user's role.") var role: RoleChoice
            @Option(
                name: .customLong("public-key"),
                help: "The user's minisign public key file (.pub), for signed approvals.") var publicKey: String?

            func run() async throws {
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }) else {
                    throw CLIError.usage("a user name is letters, digits, '.', '_' and '-'; '\(name)' is not")
                }
                let key = try publicKey.map(UserCommand.publicKeyText)
                try await Admin.change {
                    try await options.catalog().addUser(name: name, role: role.role, publicKey: key)
                }
                Admin.say(
                    options, "added \(name) as \(role.rawValue)",
                    ["user": .string(name), "role": .string(role.rawValue)])
                Admin.finish(options, "user add")
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove",
                abstract: "Remove a user: their tokens are revoked, their history stays.")
            @OptionGroup var options: Options
            @Argument(help: "The user's name.") var name: String
            func run() async throws {
                try await Admin.change { try await options.catalog().removeUser(name: name) }
                Admin.say(
                    options, "removed \(name); their tokens are revoked",
                    ["user": .string(name), "removed": .bool(true)])
                Admin.finish(options, "user remove")
            }
        }

        struct RoleCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "role", abstract: "Change a user's role.")
            @OptionGroup var options: Options
            @Argument(help: "The user's name.") var name: String
            @Argument(help: "The new role: publisher, reviewer or admin.") var role: RoleChoice
            func run() async throws {
                try await Admin.change { try await options.catalog().setRole(name: name, role: role.role) }
                Admin.say(
                    options, "\(name) is now \(role.rawValue)", ["user": .string(name), "role": .string(role.rawValue)])
                Admin.finish(options, "user role")
            }
        }

        struct PasswordCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "password",
                abstract: "Set a user's password for the web control panel (stored as a scrypt hash).",
                discussion:
                    "Asks twice on a terminal; otherwise reads the first line of standard input or of --password-file. At least 10 characters."
            )
            @OptionGroup var options: Options
            @Argument(help: "The user's name.") var name: String
            @Option(
                name: .customLong("password-file"),
                help: "Read the password from the first line of this file instead of asking.")
            var passwordFile: String?
            func run() async throws {
                let password = try Password.read(file: passwordFile, confirm: true, purpose: "a panel password")
                guard password.count >= 10 else {
                    throw CLIError.usage(
                        "the password is \(password.count) characters long; a panel password needs at least 10 (a short sentence is easy to remember)"
                    )
                }
                let hash: String
                do { hash = try PasswordHash.make(String(decoding: password, as: UTF8.self)) } catch {
                    throw CLIError.io("cannot hash the password: \(error)")
                }
                try await Admin.change { try await options.catalog().setPassword(name: name, hash: hash) }
                Admin.say(
                    options, "set the panel password of \(name)", ["user": .string(name), "password": .bool(true)])
                Admin.finish(options, "user password")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List users, with their grants.")
            @OptionGroup var options: Options
            func run() async throws {
                let catalog = try await options.catalog()
                let grants = try await catalog.grants()
                for u in try await catalog.users() {
                    let sites = grants.filter { $0.user == u.name }.map(\.site)
                    Admin.say(
                        options,
                        "\(u.name)\t\(u.role.rawValue)\(u.publicKey == nil ? "" : "\tsigning key")\(sites.isEmpty ? "" : "\tsites: " + sites.joined(separator: ","))",
                        [
                            "user": .string(u.name), "role": .string(u.role.rawValue),
                            "signingKey": .bool(u.publicKey != nil),
                            "sites": .array(sites.map { .string($0) }),
                        ])
                }
                Admin.finish(options, "user list")
            }
        }
    }

    struct TokenCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token", abstract: "Issue, list or revoke API tokens.",
            subcommands: [Issue.self, List.self, Revoke.self])

        struct Issue: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "issue", abstract: "Issue a token for a user; it is printed once.")
            @OptionGroup var options: Options
            @Argument(help: "The user.") var user: String
            func run() async throws {
                var issued: Catalog.IssuedToken?
                try await Admin.change { issued = try await options.catalog().issueToken(user: user) }
                guard let issued else { return }
                FileHandle.standardError.write(
                    Data("token \(issued.id) for \(user); it is shown only now — store it safely:\n".utf8))
                Admin.say(options, issued.token, ["user": .string(user), "token": .string(issued.token)])
                Admin.finish(options, "token issue")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List tokens (ids, never secrets).")
            @OptionGroup var options: Options
            func run() async throws {
                for t in try await options.catalog().tokens() {
                    Admin.say(
                        options,
                        "\(t.id)\t\(t.user)\tissued \(t.createdAt)\(t.revokedAt.map { "\trevoked \($0)" } ?? "\tactive")",
                        [
                            "id": .string(t.id), "user": .string(t.user), "issued": .string("\(t.createdAt)"),
                            "revoked": t.revokedAt.map { .string("\($0)") } ?? .null,
                        ])
                }
                Admin.finish(options, "token list")
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "revoke", abstract: "Revoke a token by its id.")
            @OptionGroup var options: Options
            @Argument(help: "The token id (the part after 'tp_').") var id: String
            func run() async throws {
                guard try await options.catalog().revokeToken(id: id) else {
                    throw CLIError.usage("no active token '\(id)'; list them with 'trailpack admin token list'")
                }
                Admin.say(options, "revoked token \(id)", ["id": .string(id), "revoked": .bool(true)])
                Admin.finish(options, "token revoke")
            }
        }
    }

    struct SiteCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "site",
            abstract:
                "Add or rename a site (its public name; a release never replaces an admin's name), give it a home frame or a region map.",
            subcommands: [Add.self, Rename.self, FrameCommand.self, MapCommand.self])

        struct FrameCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "frame",
                abstract: "Set the frame the control panel's map opens on for a new tour of a site, or take it away.",
                discussion: """
                    Without a home frame the map opens around the site's released tours, else its other drafts, \
                    else its region map. A tour with stops or a frame of its own always opens on those.
                    """)
            @OptionGroup var options: Options
            @Argument(help: "The site id.") var id: String
            @Option(help: "The frame as W,S,E,N in degrees, written --bounds=W,S,E,N.") var bounds: String?
            @Flag(help: "Take the home frame away (the map follows the site's tours again).") var remove = false

            func run() async throws {
                guard (bounds != nil) != remove else {
                    throw CLIError.usage(
                        "give the frame with --bounds=W,S,E,N, or --remove to take it away (one of them)")
                }
                let frame = try bounds.map { try FrameOptions.parseBounds($0) }
                guard Slug.isValid(id), try await options.catalog().siteExists(id) else {
                    throw CLIError.usage(
                        "there is no site '\(TerminalText.escaped(id))'; add it first with 'trailpack admin site add ID NAME'"
                    )
                }
                try await Admin.change { try await options.catalog().setSiteFrame(id: id, frame: frame) }
                Admin.say(
                    options, Catalog.siteFrameDetail(id, frame),
                    [
                        "site": .string(id),
                        "frame": frame.map {
                            .array(
                                [
                                    $0.southwest.longitude, $0.southwest.latitude, $0.northeast.longitude,
                                    $0.northeast.latitude,
                                ]
                                .map { .number(JSONNumber($0)) })
                        } ?? .null,
                    ])
                Admin.finish(options, "site frame")
            }
        }

        struct MapCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "map",
                abstract:
                    "Give a site a region map: the control panel's base map for its tours (a raster PMTiles file).",
                discussion: """
                    The panel's map editor draws it under a tour that has no offline map of its own yet, so that a \
                    ranger sees the roads and rivers around the trail instead of a grid. Make one with \
                    'trailpack map extract' from a larger map. With several servers sharing their drafts \
                    ('serve --drafts DIR'), give the same --drafts here.
                    """)
            @OptionGroup var options: Options
            @Argument(help: "The site id.") var id: String
            @Argument(help: "The region map: a PMTiles file of raster tiles (PNG, JPEG or WebP).") var file: String
            @Option(help: "The drafts folder the servers share (serve --drafts), if they share one.") var drafts:
                String?

            func run() async throws {
                guard Slug.isValid(id) else { throw CLIError.usage("'\(id)' is not a site id") }
                guard try await options.catalog().siteExists(id) else {
                    throw CLIError.usage(
                        "there is no site '\(id)'; add it first with 'trailpack admin site add \(id) NAME'")
                }
                let target = DraftStore.siteMapPath(dataFolder: drafts ?? options.data, site: id)
                let header: PMTilesHeader
                do {
                    header = try SiteRegionMap.install(file, shownName: file, target: target)
                } catch let refusal as SiteRegionMap.Refusal {
                    throw CLIError.usage(refusal.description)
                }
                try await Admin.change {
                    try await options.catalog().audit(
                        actor: Catalog.auditActor, action: .siteMap, id: nil, version: nil, sha256: nil,
                        detail:
                            "\(id): region map '\((file as NSString).lastPathComponent)' (zoom \(header.minZoom) to \(header.maxZoom))"
                    )
                }
                Admin.say(
                    options,
                    "site \(id) has a region map now (zoom \(header.minZoom)–\(header.maxZoom), \(header.tileType?.name ?? "raster"))",
                    ["site": .string(id), "map": .string(target)])
                Admin.finish(options, "site map")
            }
        }

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Add a site, with its public name or with none yet (its first released tour names it).")
            @OptionGroup var options: Options
            @Argument(help: "The site id (as in the manifests' site.id).") var id: String
            @Argument(help: "The public name (left out: the first released tour's site name).") var name: String?
            func run() async throws {
                guard Slug.isValid(id) else {
                    throw CLIError.usage(
                        "a site id is lowercase letters, digits and single '-' between them (as in the manifests' site.id); '\(id)' is not"
                    )
                }
                if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
                    throw CLIError.usage("the site's name must not be empty (leave it out to take the first release's)")
                }
                try await Admin.change { try await options.catalog().addSite(id: id, name: name) }
                Admin.say(
                    options, "added site \(id)" + (name.map { ": \($0)" } ?? " (its first released tour names it)"),
                    ["site": .string(id), "name": name.map { .string($0) } ?? .null])
                Admin.finish(options, "site add")
            }
        }

        struct Rename: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "rename", abstract: "Change a site's public name.")
            @OptionGroup var options: Options
            @Argument(help: "The site id.") var id: String
            @Argument(help: "The new public name.") var name: String
            func run() async throws {
                guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw CLIError.usage("the site's name must not be empty")
                }
                try await Admin.change { try await options.catalog().renameSite(id: id, name: name) }
                Admin.say(options, "renamed site \(id): \(name)", ["site": .string(id), "name": .string(name)])
                Admin.finish(options, "site rename")
            }
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "grant", abstract: "Let a publisher upload packages of a site.")
        @OptionGroup var options: Options
        @Argument(help: "The publisher.") var user: String
        @Argument(help: "The site id.") var site: String
        func run() async throws {
            try await Admin.change { try await options.catalog().grant(user: user, site: site) }
            Admin.say(
                options, "\(user) may publish to \(site)",
                ["user": .string(user), "site": .string(site), "granted": .bool(true)])
            Admin.finish(options, "grant")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Take back a publisher's grant for a site.")
        @OptionGroup var options: Options
        @Argument(help: "The publisher.") var user: String
        @Argument(help: "The site id.") var site: String
        func run() async throws {
            var changed = false
            try await Admin.change { changed = try await options.catalog().revokeGrant(user: user, site: site) }
            guard changed else { throw CLIError.usage("'\(user)' has no grant for '\(site)'") }
            Admin.say(
                options, "\(user) may no longer publish to \(site)",
                ["user": .string(user), "site": .string(site), "granted": .bool(false)])
            Admin.finish(options, "revoke")
        }
    }
}
