import ArgumentParser
import Foundation
import SystemPackage
import TrailPackBuilder
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
import TrailPackVerifier

#if canImport(Glibc)
import Glibc
#endif

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Create a signing key pair in minisign's formats.",
        usage: "trailpack keygen [-s <file>] [-p <file>] [--unencrypted] [--force]",
        discussion: """
            The secret key is protected by a password (scrypt, as minisign does) unless --unencrypted \
            is given for automation; it is written with mode 0600 and never printed. The public key is \
            what phones and servers trust: hand it out freely.

            Examples:
              # trailpack.key and trailpack.pub; asks for a password
              trailpack keygen
              # for an unattended build machine
              trailpack keygen -s ci.key -p ci.pub --unencrypted

            Exit codes: 0 created, 2 usage error (a key file exists, passwords differ), 3 I/O error.
            """)

    @Option(name: [.customShort("s"), .customLong("secret-key")], help: "Where to write the secret key.")
    var secretKey = "trailpack.key"

    @Option(name: [.customShort("p"), .customLong("public-key")], help: "Where to write the public key.")
    var publicKey = "trailpack.pub"

    @Flag(help: "Write the secret key without a password (for automation; guard the file instead).")
    var unencrypted = false

    @Option(
        name: .customLong("password-file"),
        help: "Read the password from the first line of this file instead of asking.")
    var passwordFile: String?

    @Flag(help: "Overwrite existing key files.")
    var force = false

    @Flag(help: "Print the result as JSON on standard output (the report shape of 'trailpack --help').")
    var json = false

    func run() throws {
        for path in [secretKey, publicKey] where FileManager.default.fileExists(atPath: path) && !force {
            throw CLIError.usage("'\(path)' already exists; pass --force to replace it (the old key will be lost)")
        }
        let password: [UInt8]? = unencrypted ? nil : try Password.read(file: passwordFile, confirm: true)
        let key = try SecretKey.generate()
        try Password.writeSecret(key.fileText(password: password), to: secretKey)
        try Password.writeAtomically(key.publicKeyValue.fileText, to: publicKey, mode: 0o644)
        if json {
            Report.print(
                ok: true, findings: [],
                [
                    JSONMember("keyID", .string(key.publicKeyValue.keyIDHex)),
                    JSONMember("secretKey", .string(secretKey)),
                    JSONMember("publicKey", .string(publicKey)), JSONMember("encrypted", .bool(!unencrypted)),
                ])
            return
        }
        CLI.out(
            """
            key id      \(key.publicKeyValue.keyIDHex)
            secret key  \(secretKey) (mode 0600\(unencrypted ? ", NOT password-protected" : ", password-protected")) — keep it secret
            public key  \(publicKey) — give it to servers and apps: trailpack verify <package> --trusted-key \(publicKey)

            """)
    }
}

typealias SecretKey = Minisign.SecretKey

struct Sign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a package (a minisign-compatible .minisig).",
        usage: "trailpack sign <package> [-s <key>] [-o <file.minisig>]",
        discussion: """
            The package is verified first. The signature is minisign's prehashed form (BLAKE2b-512 of the \
            file, Ed25519); its trusted comment carries the package id, version and SHA-256, and is \
            itself signed. A package that still holds the template's text from 'trailpack init' is not \
            signed. For approval by several people, each signs into a file of their own \
            (-o <package>.<name>.minisig) and 'verify --threshold N' counts distinct trusted keys.

            Examples:
              trailpack sign santiam.zip -s trailpack.key
              minisign -Vm santiam.zip -p trailpack.pub
              trailpack sign santiam.zip -s alice.key -o santiam.zip.alice.minisig

            Exit codes: 0 signed, 1 the package is not valid or holds template text, 2 usage error (wrong \
            password), 3 I/O error.
            """)

    @Argument(help: "The package to sign.")
    var package: String

    @Option(name: [.customShort("s"), .customLong("secret-key")], help: "The secret key.")
    var secretKey = "trailpack.key"

    @Option(
        name: .customLong("password-file"),
        help: "Read the password from the first line of this file instead of asking.")
    var passwordFile: String?

    @Option(name: .shortAndLong, help: "The signature file to write (default: <package>.minisig).")
    var output: String?

    @Flag(help: "Print the result as JSON on standard output (the report shape of 'trailpack --help').")
    var json = false

    func run() throws {
        // A tour folder given for its package: the package is what reviewers and phones check.
        if CLI.isDirectory(package) {
            throw CLIError.usage(
                "'\(package)' is a folder; sign the package built from it: trailpack build '\(package)', then trailpack sign <the .zip it wrote>"
            )
        }
        // The package first: nobody should type a password for a package that will be refused.
        let report: VerificationReport
        do { report = try Verifier.verify(path: package, options: .init(prehash: true)) } catch {
            throw CLIError.io("\(error)")
        }
        guard report.isValid, let manifest = report.manifest, let prehash = report.blake2b512 else {
            CLI.printFindings(report.findings, to: .standardError)
            Report.pendingFindings = report.findings
            throw CLIError(code: .invalid, message: "'\(package)' is not a valid package; it was not signed")
        }
        let placeholders = TourInit.placeholderFields(in: manifest)
        if !placeholders.isEmpty {
            throw CLIError(
                code: .invalid,
                message: """
                    '\(package)' still holds the template's text in \(placeholders.joined(separator: ", ")); replace it in \
                    tour.json and waypoint.json, build again, then sign (the package was not signed)
                    """)
        }
        let text: String
        do { text = try String(contentsOfFile: secretKey, encoding: .utf8) } catch {
            let missing = !FileManager.default.fileExists(atPath: secretKey)
            throw CLIError.io(
                missing
                    ? "there is no secret key '\(secretKey)'; give yours with -s FILE (such as -s station.key), or make one with 'trailpack keygen'"
                    : "cannot read the secret key '\(secretKey)': \(error.localizedDescription)")
        }
        let key: SecretKey
        do {
            key = try SecretKey.parse(fileText: text) { try Password.read(file: passwordFile, confirm: false) }
        } catch let e as CryptoError where e.code != .library {
            throw CLIError.usage("'\(secretKey)': \(e)")
        }
        let timestamp = try SigningTime.now()
        let comment = SignatureCheck.trustedComment(
            manifest: manifest, sha256: report.sha256,
            fileName: URL(fileURLWithPath: package).lastPathComponent, timestamp: timestamp)
        let signature = try Minisign.Signature.sign(prehash: prehash, key: key, trustedComment: comment)
        let path = output ?? package + ".minisig"
        try Password.writeAtomically(signature.fileText, to: path, mode: 0o644)
        if json {
            Report.print(
                ok: true, findings: [],
                [
                    JSONMember("package", .string(package)), JSONMember("signature", .string(path)),
                    JSONMember("keyID", .string(key.publicKeyValue.keyIDHex)), JSONMember("id", .string(manifest.id)),
                    JSONMember("version", .string(manifest.version)),
                ])
        } else {
            CLI.out("signed \(package) with key \(key.publicKeyValue.keyIDHex) → \(path)\n")
        }
    }
}

/// The signing time: SOURCE_DATE_EPOCH when set (reproducible signatures), else now; an invalid
/// value is refused, as `build` refuses it, rather than silently replaced by now.
enum SigningTime {
    static func now() throws -> Int64 {
        do { return try SourceDateEpoch.value() ?? Int64(Date().timeIntervalSince1970) } catch {
            throw CLIError.usage(error.description)
        }
    }
}

/// Passwords and secret files.
enum Password {
    /// From `file`'s first line, from the terminal without echo, or from standard input's first line.
    static func read(file: String?, confirm: Bool, purpose: String = "a key's password") throws -> [UInt8] {
        if let file {
            let text: String
            do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                throw CLIError.io("cannot read the password file '\(file)'")
            }
            return try nonEmpty(
                String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""), purpose)
        }
        if isatty(0) == 1 {
            let first = try prompt("Password: ")
            if confirm, try prompt("Password (again): ") != first { throw CLIError.usage("the passwords differ") }
            return try nonEmpty(first, purpose)
        }
        return try nonEmpty(readLine(strippingNewline: true) ?? "", purpose)
    }

    private static func nonEmpty(_ s: String, _ purpose: String) throws -> [UInt8] {
        guard !s.isEmpty else {
            throw CLIError.usage(
                purpose == "a key's password"
                    ? "the password is empty (use --unencrypted for a key without one)"
                    : "the password is empty: \(purpose) cannot be empty")
        }
        return Array(s.utf8)
    }

    private static func prompt(_ text: String) throws -> String {
        FileHandle.standardError.write(Data(text.utf8))
        var saved = termios()
        tcgetattr(0, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSANOW, &quiet)
        defer {
            tcsetattr(0, TCSANOW, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }

    /// Writes a secret file: created 0600 under a temporary name (never wider, whatever the umask),
    /// flushed, then renamed into place.
    static func writeSecret(_ text: String, to path: String) throws {
        try writeAtomically(text, to: path, mode: 0o600)
    }

    static func writeAtomically(_ text: String, to path: String, mode: mode_t) throws {
        // Created with `mode` from the start, flushed, renamed into place, the folder flushed.
        try AtomicFile.write(Array(text.utf8), to: path, permissions: FilePermissions(rawValue: mode))
    }
}
