import ArgumentParser
import Foundation
import TrailPackArchive
import TrailPackBuilder
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
import TrailPackVerifier

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a received package, its hash and signatures.",
        usage: "trailpack verify <package> [--sha256 <hex>] [--trusted-key <key>]...",
        discussion: """
            Every problem is reported, each with a code from docs/FORMAT.md. The whole-file SHA-256 is \
            always printed; with --sha256 or --sha256-file it must match.

            Examples:
              trailpack verify santiam.zip --sha256 4f3c...e9
              trailpack verify santiam.zip --sha256-file santiam.zip.sha256 --json
              trailpack verify santiam.zip --trusted-key ranger.pub
              # two distinct reviewers signed it
              trailpack verify santiam.zip --trusted-key reviewers/ --threshold 2
              # not older than the version the phone already has
              trailpack verify santiam.zip --last-version 1.0.0

            Exit codes: 0 valid, 1 invalid (findings listed), 2 usage error, 3 the file cannot be read.
            """)

    @Argument(help: "The package (.zip) to check.")
    var package: String

    @Option(help: "The SHA-256 the package must have (64 hex digits, either case).")
    var sha256: String?

    @Option(name: .customLong("sha256-file"), help: "A file in sha256sum format holding the expected SHA-256.")
    var sha256File: String?

    @Option(
        name: .customLong("min-map-zoom"),
        help: "Warn when the map's most detailed zoom is below this (14 suits walking).")
    var minMapZoom: Int = 14

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Option(help: "1 to use a single thread; 2 adds threads for the whole-file hash and the manifest.")
    var threads: Int = 2

    @Option(
        name: .customLong("trusted-key"),
        help: "A trusted minisign public key, or a folder of them (*.pub); repeatable. Requires a valid signature.")
    var trustedKeys: [String] = []

    @Option(
        name: .customLong("signature"),
        help: "A signature file (default: <package>.minisig and <package>.*.minisig); repeatable.")
    var signatures: [String] = []

    @Option(help: "How many distinct trusted keys must have signed.")
    var threshold: Int = 1

    @Option(
        name: .customLong("last-version"),
        help: "The newest version of this package already accepted: an older one is refused (rollback protection).")
    var lastVersion: String?

    func validate() throws {
        if sha256 != nil && sha256File != nil { throw ValidationError("give --sha256 or --sha256-file, not both") }
        if let s = sha256, SHA256Digest(hex: s) == nil {
            throw ValidationError("--sha256 must be 64 hexadecimal digits")
        }
        if !(1...2).contains(threads) { throw ValidationError("--threads must be 1 or 2") }
        if threshold < 1 { throw ValidationError("--threshold must be at least 1") }
        if threshold > 1 && trustedKeys.isEmpty { throw ValidationError("--threshold needs --trusted-key") }
        // Signatures are checked against the keys trusted: without one they would be ignored.
        if !signatures.isEmpty && trustedKeys.isEmpty {
            throw ValidationError(
                "--signature needs --trusted-key: a signature is checked against the keys you trust (a reviewer's .pub, or a folder of them)"
            )
        }
    }

    func run() throws {
        let expected = try expectedDigest()
        var report: VerificationReport
        let keys: [Minisign.PublicKey]
        keys = try CLI.loadTrustedKeys(trustedKeys)
        do {
            var options = Verifier.Options(expectedSHA256: expected, threads: threads, prehash: !keys.isEmpty)
            options.map.minDetailZoom = minMapZoom
            // The verdict and the tour's name and counts are all this prints: the stops' assets are let go as read.
            options.keepsAssets = false
            report = try Verifier.verify(path: package, options: options)
        } catch {
            throw CLIError.io("\(error)")
        }
        var signers: [String] = []
        if !keys.isEmpty, let prehash = report.blake2b512 {
            let files = signatures.isEmpty ? SignatureCheck.findSignatures(besides: package) : signatures
            var inputs: [SignatureCheck.Input] = []
            for file in files {
                let bytes: [UInt8]
                do { bytes = try FileOperations.readAll(file, limit: Minisign.maxFileBytes) } catch {
                    let why = error.systemCall.map { "\($0.errno)" } ?? error.message
                    throw CLIError.io("cannot read the signature '\(file)': \(why)")
                }
                let text = String(decoding: bytes, as: UTF8.self)
                inputs.append(.init(name: URL(fileURLWithPath: file).lastPathComponent, text: text))
            }
            let result = SignatureCheck.check(
                signatures: inputs, trustedKeys: keys, threshold: threshold, prehash: prehash,
                manifest: report.manifest, sha256: report.sha256)
            report.findings += result.findings
            signers = result.validSigners
        }
        if let lastVersion, let m = report.manifest, let f = RollbackGuard.check(manifest: m, lastAccepted: lastVersion)
        {
            report.findings.append(f)
        }
        if json {
            var members: [JSONMember] = [
                JSONMember("valid", .bool(report.isValid)),
                JSONMember("file", .string(package)),
                JSONMember("size", .number(JSONNumber(report.size))),
                JSONMember("sha256", .string(report.sha256.hex)),
                JSONMember("expectedSHA256", report.expectedSHA256.map { .string($0.hex) } ?? .null),
                JSONMember("sha256Matches", report.sha256Matches.map { .bool($0) } ?? .null),
                JSONMember("entries", .number(JSONNumber(Int64(report.entryCount)))),
            ]
            if let m = report.manifest {
                members.append(JSONMember("id", .string(m.id)))
                members.append(JSONMember("version", .string(m.version)))
            }
            // Left out when no key was given: nobody was asked to have signed it.
            if !keys.isEmpty { members.append(JSONMember("signers", .array(signers.map { .string($0) }))) }
            members.append(
                JSONMember(
                    "maps",
                    .array(
                        report.maps.map {
                            .object(
                                [JSONMember("path", .string($0.path))]
                                    + MapOutput.json($0.report).objectMembers.filter { $0.key != "findings" })
                        })))
            Report.print(ok: report.isValid, findings: report.findings, members)
        } else {
            CLI.out("package   \(package) (\(Format.bytes(report.size)), \(report.entryCount) entries)\n")
            let match =
                report.sha256Matches.map { $0 ? "matches the expected value" : "DOES NOT match the expected value" }
                ?? "no expected value given"
            CLI.out("sha256    \(report.sha256.hex) (\(match))\n")
            if let m = report.manifest {
                CLI.out(
                    "tour      \(TerminalText.escaped(m.name)) (\(m.id) version \(m.version)), \(m.waypoints.count) waypoints, \(report.assetCount) assets\n"
                )
            }
            for map in report.maps {
                CLI.out("map       \(TerminalText.escaped(map.path))\n" + MapOutput.text(map.report, indent: "  "))
            }
            if !keys.isEmpty {
                CLI.out("signed by \(signers.isEmpty ? "no trusted key" : signers.joined(separator: ", "))\n")
            } else {
                // "valid" alone would read as "signed and approved": say what was not asked.
                CLI.out(
                    "signed    not checked: give the reviewers' public keys with --trusted-key to check who signed it\n"
                )
            }
            CLI.printFindings(report.findings)
            if report.isValid {
                CLI.outOK("valid\n")
            } else {
                CLI.outRaw(
                    Output.paint("NOT VALID", .error, fd: 1)
                        + ": \(CLI.counts(report.findings)); do not use this package\n")
            }
        }
        if !report.isValid { throw ExitCode(CLIExit.invalid.rawValue) }
    }

    private func expectedDigest() throws -> SHA256Digest? {
        if let sha256 { return SHA256Digest(hex: sha256) }
        guard let sha256File else { return nil }
        let text = String(decoding: try FileOperations.readPrefix(sha256File, maxBytes: 1 << 20), as: UTF8.self)
        let base = URL(fileURLWithPath: package).lastPathComponent
        // The same format `trailpack hash` and `build` write (SHA256Digest.sha256sumLine), escaped names included.
        let candidates = text.split(separator: "\n").compactMap { SHA256Digest.parseSHA256SumLine($0) }
        let chosen =
            candidates.count == 1
            ? candidates.first : candidates.first { URL(fileURLWithPath: $0.name).lastPathComponent == base }
        guard let digest = chosen?.digest else {
            throw CLIError.usage(
                "'\(sha256File)' has no SHA-256 line for '\(base)' (expected sha256sum's format: <64 hex digits>  <file name>)"
            )
        }
        return digest
    }
}
