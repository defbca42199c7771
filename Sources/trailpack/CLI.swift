import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
import TrailPackVerifier

#if canImport(Glibc)
import Glibc
#endif

/// The exit codes every command documents.
enum CLIExit: Int32 {
    case ok = 0
    case invalid = 1
    case usage = 2
    case io = 3
}

/// A failure with its exit code and a message for people.
struct CLIError: Error {
    var code: CLIExit
    var message: String
    static func usage(_ m: String) -> CLIError { CLIError(code: .usage, message: m) }
    static func io(_ m: String) -> CLIError { CLIError(code: .io, message: m) }
}

enum CLI {
    // Human text goes through TerminalText: a name taken from a file cannot send escape
    // sequences to the operator's terminal. Machine output (JSON, sha256sum lines) is written raw.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data((TerminalText.escapedKeepingLines(message) + "\n").utf8))
    }

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(TerminalText.escapedKeepingLines(text).utf8))
    }

    /// Machine-readable output, exactly as given (already escaped by its own format).
    static func outRaw(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    // printFindings and printError live in Output.swift: one place for colour and escaping.

    static func counts(_ findings: [Finding]) -> String {
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.count - errors
        return "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
    }

    static func printJSON(_ value: JSONValue) { outRaw(JSONWriter.string(value)) }

    /// The trusted keys for --trusted-key: a key file that is not there is an I/O problem
    /// (exit 3), one that is not a public key a usage error (exit 2).
    static func loadTrustedKeys(_ paths: [String]) throws -> [Minisign.PublicKey] {
        do { return try SignatureCheck.loadTrustedKeys(paths) } catch {
            let missing = paths.contains { !FileManager.default.fileExists(atPath: $0) }
            throw missing ? CLIError.io("\(error)") : CLIError.usage("\(error)")
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }
}
