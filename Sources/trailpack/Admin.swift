import ArgumentParser
import Foundation
import TrailPackCatalog
import TrailPackCrypto
import TrailPackServer

struct Admin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the server's users, tokens, sites and packages.",
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
}
