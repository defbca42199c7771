import ArgumentParser
import Foundation
import TrailPackCatalog

struct Admin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the server's accounts and API tokens (on its data folder).",
        discussion: """
            Roles: a publisher uploads a package version, opens its publish request and releases it once
            approved; a reviewer approves or denies requests; an admin can do all of that and withdraw a
            released version. Tokens are random, shown once, and stored only as hashes.

            Examples:
              trailpack admin --data ./data user add maria --role publisher
              trailpack admin --data ./data user add ken --role reviewer --public-key ken.pub
              trailpack admin --data ./data token issue maria
              trailpack admin --data ./data token revoke 3f9c0a1b2c4d

            Exit codes: 0 done, 2 usage error (no such user or token, a user that exists), 3 the data folder cannot be used.
            """,
        subcommands: [UserCommand.self, TokenCommand.self])

    struct Options: ParsableArguments {
        @Option(help: "The server's data folder.")
        var data: String

        func catalog() throws -> Catalog {
            do {
                try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
                return try Catalog(path: data + "/catalog.sqlite")
            } catch { throw CLIError.io("cannot open the catalog in '\(data)': \(error)") }
        }
    }

    struct UserCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "user", abstract: "Add or list users.", subcommands: [Add.self, List.self])

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add a user with a role.")
            @OptionGroup var options: Options
            @Argument(help: "The user's name.") var name: String
            @Option(help: "publisher, reviewer or admin.") var role: String
            @Option(name: .customLong("public-key"), help: "The user's minisign public key file, for signed approvals.") var publicKey: String?

            func run() throws {
                guard let role = Catalog.Role(rawValue: role) else { throw CLIError.usage("the role must be publisher, reviewer or admin") }
                var key: String?
                if let publicKey {
                    guard let text = try? String(contentsOfFile: publicKey, encoding: .utf8) else { throw CLIError.io("cannot read '\(publicKey)'") }
                    key = text
                }
                do { try options.catalog().addUser(name: name, role: role, publicKey: key) } catch let e as CLIError { throw e } catch {
                    throw CLIError.usage("cannot add '\(name)' (does the user exist already?): \(error)")
                }
                CLI.out("added \(name) as \(role.rawValue)\n")
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List users.")
            @OptionGroup var options: Options
            func run() throws {
                for u in try options.catalog().users() { CLI.out("\(u.name)\t\(u.role.rawValue)\(u.publicKey == nil ? "" : "\tsigning key")\n") }
            }
        }
    }

    struct TokenCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "token", abstract: "Issue or revoke API tokens.", subcommands: [Issue.self, Revoke.self])

        struct Issue: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Issue a token for a user; it is printed once.")
            @OptionGroup var options: Options
            @Argument(help: "The user.") var user: String
            func run() throws {
                let (id, token): (String, String)
                do { (id, token) = try options.catalog().issueToken(user: user) } catch let e as CatalogError { throw CLIError.usage("\(e)") }
                FileHandle.standardError.write(Data("token \(id) for \(user); it is shown only now — store it safely:\n".utf8))
                CLI.out(token + "\n")
            }
        }

        struct Revoke: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a token by its id.")
            @OptionGroup var options: Options
            @Argument(help: "The token id (the part after 'tp_').") var id: String
            func run() throws {
                guard try options.catalog().revokeToken(id: id) else { throw CLIError.usage("no active token '\(id)'") }
                CLI.out("revoked token \(id)\n")
            }
        }
    }
}
