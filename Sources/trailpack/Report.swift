import ArgumentParser
import Foundation
import TrailPackBuilder
import TrailPackCore

/// The one shape of every `--json` report, on standard output:
///
/// ```
/// {"ok": true, "command": "build", <the command's fields, null when unknown>, "findings": [...], "error": null}
/// ```
/// `ok` is true when the command did what it was asked and found no errors; `error` says why
/// not when it could not run at all (`{"kind": "usage" | "io" | "invalid", "message": ...}`).
/// `manifests/report.schema.json` is its JSON Schema. Human text goes to standard error.
enum Report {
    // These are set by the main thread before and after the one command runs; nothing else runs
    // at the same time, hence nonisolated(unsafe).

    /// Whether `--json` was given (read before parsing, so that even a usage error answers in JSON).
    nonisolated(unsafe) static var jsonRequested = false
    /// The command being run, as typed.
    nonisolated(unsafe) static var command = "trailpack"
    /// Set once a report is printed: a later failure must not print a second one.
    nonisolated(unsafe) static var printed = false
    /// Findings gathered before a failure, for the failure's report.
    nonisolated(unsafe) static var pendingFindings: [Finding] = []

    /// The fields each command's report always has, in order.
    static let fields: [String: [String]] = [
        "validate": ["valid", "path", "languages"],
        "build": [
            "built", "package", "checksumFile", "sha256", "id", "version", "waypoints", "assets", "assetBytes",
            "packageBytes", "seconds", "flushSeconds", "languages",
        ],
        "verify": [
            "valid", "file", "size", "sha256", "expectedSHA256", "sha256Matches", "entries", "id", "version", "signers",
            "maps",
        ],
        "inspect": ["manifest", "totals", "languages", "localized"],
        "hash": ["files"],
        "sign": ["package", "signature", "keyID", "id", "version"],
        "keygen": ["keyID", "secretKey", "publicKey", "encrypted"],
        "extract": ["directory", "files", "sha256"],
        "init": ["folder", "files"],
        "admin": ["action", "results"],
        "diff": ["old", "new", "changed", "diff"],
        "fetch": [
            "id", "version", "sha256", "size", "file", "alreadyInstalled", "signers", "confirmed", "update", "reason",
            "sites",
        ],
    ]

    /// Prints the report of `command` (its declared fields from `values`, null for the rest).
    static func print(
        ok: Bool, findings: [Finding], _ values: [JSONMember] = [], error: (kind: String, message: String)? = nil
    ) {
        var members: [JSONMember] = [JSONMember("ok", .bool(ok)), JSONMember("command", .string(command))]
        for name in fields[command] ?? [] {
            members.append(JSONMember(name, values.first { $0.key == name }?.value ?? .null))
        }
        members.append(JSONMember("findings", .array(findings.map(\.jsonValue))))
        members.append(
            JSONMember(
                "error", error.map { .object(["kind": .string($0.kind), "message": .string($0.message)]) } ?? .null))
        printed = true
        CLI.printJSON(.object(members))
    }

    /// Reads `--json` and the command name from the arguments, before parsing.
    static func prepare(_ arguments: [String]) {
        let options = arguments.prefix { $0 != "--" }
        jsonRequested = options.contains("--json")
        if let first = arguments.first(where: { !$0.hasPrefix("-") }), fields[first] != nil || first == "cat" {
            command = first
        }
    }

    /// Ends the process for `error` with the documented exit code: the message on standard
    /// error and, under `--json`, a report with `ok: false` on standard output.
    static func exit(for error: Error) -> Never {
        if let e = error as? ExitCode {
            // The command has said what it had to (findings, a message); a report if it did not.
            if jsonRequested && !printed && e.rawValue != 0 { print(ok: false, findings: pendingFindings) }
            Foundation.exit(e.rawValue)
        }
        guard let status = ExitStatus.of(error) else {
            if TrailPack.exitCode(for: error) == .success { TrailPack.exit(withError: error) }  // --help, --version
            finish(ExitStatus(code: .usage, message: TrailPack.message(for: error) + "\nSee 'trailpack --help'."))
        }
        finish(status)
    }

    /// Prints `status`'s message (and, under `--json`, the report) and exits with its code.
    private static func finish(_ status: ExitStatus) -> Never {
        CLI.printError(status.message)
        if jsonRequested && !printed {
            let message = status.message.components(separatedBy: "\nSee 'trailpack --help'.").first ?? status.message
            print(ok: false, findings: pendingFindings, error: (status.kind, message))
        }
        Foundation.exit(status.code.rawValue)
    }
}

extension JSONValue {
    /// The members of an object (empty for anything else).
    var members: [JSONMember] {
        if case .object(let m) = self { return m }
        return []
    }
}
