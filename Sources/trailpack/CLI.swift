import Foundation
import TrailPackBuilder
import TrailPackCore
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
    static func note(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func fail(_ error: BuildError) -> Never {
        printError(error.description)
        switch error {
        case .usage: exit(CLIExit.usage.rawValue)
        case .io: exit(CLIExit.io.rawValue)
        case .invalidTour: exit(CLIExit.invalid.rawValue)
        }
    }

    // printFindings and printError live in Output.swift: one place for colour and escaping.

    static func counts(_ findings: [Finding]) -> String {
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.count - errors
        return "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
    }

    static func printJSON(_ value: JSONValue) { out(JSONWriter.string(value)) }

    /// Reads a whole small file, with a size limit, as bytes.
    static func readSmallFile(_ path: String, limit: Int) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError.io("cannot read '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        var out: [UInt8] = []
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            out += chunk
            if out.count > limit { break }
        }
        return out
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }
}
