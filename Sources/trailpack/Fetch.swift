import ArgumentParser
import Foundation
import Synchronization
import TrailPackBuilder
import TrailPackClient

struct Fetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download, check and install a package as a phone does.",
        usage: """
            trailpack fetch <server> <package-id> --into <library> [options]
            trailpack fetch --list <server> [--site <site>]
            """,
        discussion: """
            Reads the package's entry from the server, refuses a rollback, downloads into LIBRARY/.partial/ \
            (resuming an interrupted download with Range and If-Range), checks the length and the whole-file \
            SHA-256 against the catalog and the server's Repr-Digest, verifies the package in full, checks the \
            reviewers' signatures against --trusted-key, installs it atomically as LIBRARY/<id>/<version>.zip, and \
            confirms the download to the server. A damaged download is deleted: run the command again.

            Examples:
              # what the server offers
              trailpack fetch --list https://tours.example.gov
              # the newest released version, into ./library
              trailpack fetch https://tours.example.gov gov.example.fish-lake \\
                --into library
              # only if two trusted reviewers signed these bytes
              trailpack fetch https://tours.example.gov gov.example.fish-lake \\
                --into library --trusted-key reviewers/ --threshold 2

            Exit codes: 0 installed (or already installed), 1 the package was refused (damaged, invalid, \
            too few signatures, a rollback), 2 usage error, 3 the server or the library folder cannot be reached.
            """)

    @Argument(help: "The server's base URL (http:// or https://).")
    var server: String

    @Argument(help: "The package id to fetch (not with --list).")
    var packageID: String?

    @Option(name: .customLong("package-version"), help: "The version to fetch (default: the newest released).")
    var packageVersion: String?

    @Option(name: .customLong("into"), help: "The library folder packages are installed in.")
    var library: String?

    @Flag(help: "List the server's sites and packages instead of fetching.")
    var list = false

    @Option(help: "With --list: only this site's packages.")
    var site: String?

    @Option(name: .customLong("trusted-key"), help: "A trusted public key, or a folder of them (*.pub); repeatable.")
    var trustedKeys: [String] = []

    @Option(help: "How many distinct trusted keys must have signed (needs --trusted-key).")
    var threshold: Int = 1

    @Option(help: "A bearer token, for versions under review.")
    var token: String?

    @Option(help: "How many times a broken connection is retried.")
    var retries: Int = 5

    @Flag(
        help:
            "Always download the whole package (by default a newer version of an installed package fetches only the entries that changed)."
    )
    var full = false

    @Flag(help: "Print the result as JSON.")
    var json = false

    /// `--json`'s `update`: how the package came (by part, in full, or not at all) and what it cost.
    static func updateJSON(_ outcome: PackageFetcher.Outcome, size: Int64) -> JSONValue {
        if outcome.alreadyInstalled { return .null }
        guard let u = outcome.update else {
            return .object([
                JSONMember("mode", .string("full")),
                JSONMember("fallback", outcome.updateFallback.map { .string($0) } ?? .null),
            ])
        }
        return .object([
            JSONMember("mode", .string("by-part")),
            JSONMember("fetchedBytes", .number(JSONNumber(u.fetchedBytes))),
            JSONMember("reusedBytes", .number(JSONNumber(u.reusedBytes))),
            JSONMember("requests", .number(JSONNumber(Int64(u.requests)))),
            JSONMember("entriesFetched", .number(JSONNumber(Int64(u.entriesFetched)))),
            JSONMember("entriesReused", .number(JSONNumber(Int64(u.entriesReused)))),
        ])
    }

    func validate() throws {
        guard let url = URL(string: server), let scheme = url.scheme, ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw ValidationError("'\(server)' is not a server address; give one like https://tours.example.gov")
        }
        if list {
            if packageID != nil { throw ValidationError("--list takes no package id") }
        } else {
            if packageID == nil { throw ValidationError("give the package id to fetch, or --list") }
            if library == nil { throw ValidationError("give the library folder with --into") }
        }
        if threshold < 1 { throw ValidationError("--threshold must be at least 1") }
        if threshold > 1 && trustedKeys.isEmpty { throw ValidationError("--threshold needs --trusted-key") }
        if !(0...100).contains(retries) { throw ValidationError("--retries must be between 0 and 100") }
    }

    func run() async throws {
        let client = CatalogClient(server: URL(string: server)!, token: token)
        if list { return try await runList(client) }
        let keys: [Minisign.PublicKey]
        keys = try CLI.loadTrustedKeys(trustedKeys)
        var fetcher = PackageFetcher(
            client: client, library: PackageLibrary(folder: library!), trustedKeys: keys,
            threshold: threshold, retries: retries)
        fetcher.updateByPart = !full
        let display = FetchProgress(enabled: !json && isatty(2) == 1)
        do {
            let outcome = try await fetcher.fetch(id: packageID!, version: packageVersion) { display.show($0) }
            display.finish()
            let p = outcome.installed
            if json {
                Report.print(
                    ok: true, findings: outcome.report?.findings ?? [],
                    [
                        JSONMember("id", .string(p.id)), JSONMember("version", .string(p.version)),
                        JSONMember("sha256", .string(p.sha256)), JSONMember("size", .number(JSONNumber(p.size))),
                        JSONMember("file", .string(fetcher.library.path(of: p))),
                        JSONMember("alreadyInstalled", .bool(outcome.alreadyInstalled)),
                        JSONMember("signers", .array(p.signers.map { .string($0) })),
                        JSONMember("confirmed", outcome.confirmed.map { .bool($0) } ?? .null),
                        JSONMember("update", Self.updateJSON(outcome, size: p.size)),
                    ])
            } else if outcome.alreadyInstalled {
                CLI.out("\(p.id) \(p.version) is already installed (\(fetcher.library.path(of: p)))\n")
            } else {
                let signed = p.signers.isEmpty ? "" : ", signed by \(p.signers.joined(separator: ", "))"
                CLI.out(
                    "installed \(p.id) \(p.version) (\(Format.bytes(p.size)), sha256 \(p.sha256)\(signed)) as \(fetcher.library.path(of: p))\n"
                )
                if let update = outcome.update {
                    CLI.note(
                        "updated by part: fetched \(Format.bytes(update.fetchedBytes)) in \(update.requests) requests, reused \(Format.bytes(update.reusedBytes)) from the installed version"
                    )
                } else if let why = outcome.updateFallback {
                    CLI.note("note: the whole package was downloaded (an update by part was not possible: \(why))")
                }
                if outcome.confirmed == nil { CLI.note("note: the download could not be confirmed to the server") }
            }
        } catch {
            display.finish()
            let status = ExitStatus.of(error)!
            if json {
                // `reason` is the client's stable code: damaged, invalid, signature, rollback, network…
                Report.print(
                    ok: false, findings: [],
                    [
                        JSONMember("id", .string(packageID!)),
                        JSONMember("version", packageVersion.map { .string($0) } ?? .null),
                        JSONMember("reason", .string(error.code.description)),
                    ], error: (kind: status.kind, message: status.message))
            } else {
                CLI.printError(status.message)
            }
            throw ExitCode(status.code.rawValue)
        }
    }

    private func runList(_ client: CatalogClient) async throws {
        do {
            let sites = try await client.sites().filter { site == nil || $0.id == site }
            if let site, sites.isEmpty {
                throw ClientError(.notFound, "\(server) has no site '\(site)' with released packages")
            }
            var out: [JSONValue] = []
            for s in sites {
                let packages = try await client.packages(site: s.id)
                if json {
                    out.append(
                        .object([
                            JSONMember("id", .string(s.id)), JSONMember("name", .string(s.name)),
                            JSONMember(
                                "packages",
                                .array(
                                    packages.map { p in
                                        .object([
                                            JSONMember("id", .string(p.id)), JSONMember("name", .string(p.name)),
                                            JSONMember("version", .string(p.version)),
                                            JSONMember("size", .number(JSONNumber(p.size))),
                                            JSONMember("sha256", .string(p.sha256)),
                                        ])
                                    })),
                        ]))
                } else {
                    CLI.out("\(s.name) (\(s.id))\n")
                    for p in packages { CLI.out("  \(p.id)  \(p.version)  \(Format.bytes(p.size))  \(p.name)\n") }
                }
            }
            if json { Report.print(ok: true, findings: [], [JSONMember("sites", .array(out))]) }
        } catch let error as ClientError {
            let status = ExitStatus.of(error)!
            if json {
                Report.print(
                    ok: false, findings: [], [JSONMember("reason", .string(error.code.description))],
                    error: (kind: status.kind, message: status.message))
            } else {
                CLI.printError(status.message)
            }
            throw ExitCode(status.code.rawValue)
        }
    }
}

/// One line of progress on a terminal, redrawn in place and cut to the terminal's width.
final class FetchProgress: Sendable {
    /// When a line was last drawn, and whether one was; called from URLSession's delegate queue.
    private struct Drawn {
        var last = Date.distantPast
        var any = false
    }

    private let enabled: Bool
    private let drawn = Mutex(Drawn())

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ stage: PackageFetcher.Stage) {
        guard enabled else { return }
        let text: String
        switch stage {
        case .resolving: text = "asking the server…"
        case .downloading(let p):
            let now = Date()
            let due = drawn.withLock { d -> Bool in
                guard now.timeIntervalSince(d.last) > 0.1 || p.received == p.total else { return false }
                d.last = now
                return true
            }
            guard due else { return }
            let percent = p.total > 0 ? Int(p.received * 100 / p.total) : 100
            text = "downloading \(Format.bytes(p.received)) of \(Format.bytes(p.total)) (\(percent)%)"
        case .verifying: text = "verifying…"
        case .checkingSignatures: text = "checking signatures…"
        case .installing: text = "installing…"
        case .confirming: text = "confirming to the server…"
        }
        var width = 80
        var size = winsize()
        if ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 10 { width = Int(size.ws_col) }
        let line = String(text.prefix(width - 1))
        drawn.withLock { $0.any = true }
        FileHandle.standardError.write(Data(("\r\u{1b}[K" + line).utf8))
    }

    func finish() {
        guard enabled, drawn.withLock({ $0.any }) else { return }
        FileHandle.standardError.write(Data("\r\u{1b}[K".utf8))
    }
}
