import ArgumentParser
import Foundation
import TrailPackCore
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#endif

/// When to colour what is printed: `--color auto|always|never` (before or after the command).
enum ColorChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, always, never
}

/// Everything that prints findings and errors for people goes through here, so that one place
/// decides colour (and escaping of what came from a file).
enum Output {
    /// Set once, from the arguments, before the command runs (hence nonisolated(unsafe)).
    nonisolated(unsafe) static var color: ColorChoice = .auto

    /// Whether to colour text written to `fd`: always/never as asked; on auto, only on a terminal,
    /// and not when `NO_COLOR` is set (no-color.org) or the terminal is dumb.
    static func colors(_ fd: Int32) -> Bool {
        switch color {
        case .always: return true
        case .never: return false
        case .auto:
            let env = ProcessInfo.processInfo.environment
            if let noColor = env["NO_COLOR"], !noColor.isEmpty { return false }
            if env["TERM"] == "dumb" { return false }
            return isatty(fd) == 1
        }
    }

    enum Style: String {
        case error = "1;31", warning = "33", ok = "32"
    }

    static func paint(_ text: String, _ style: Style, fd: Int32) -> String {
        colors(fd) ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// One finding as a line: `error[code] file: path: message`, the severity coloured.
    static func line(_ f: Finding, fd: Int32) -> String {
        let text = f.description
        let label = f.severity.rawValue
        guard text.hasPrefix(label) else { return text }
        return paint(label, f.severity == .error ? .error : .warning, fd: fd) + text.dropFirst(label.count)
    }

    /// Reads `--color X` / `--color=X` from anywhere in the arguments and removes it.
    static func takeColorOption(_ arguments: [String]) throws -> [String] {
        var rest: [String] = []
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" { rest += arguments[i...]; break }
            var value: String?
            if a == "--color" || a == "--colour" {
                guard i + 1 < arguments.count else {
                    throw CLIError.usage("--color needs a value: auto, always or never")
                }
                value = arguments[i + 1]
                i += 2
            } else if a.hasPrefix("--color=") || a.hasPrefix("--colour=") {
                value = String(a.split(separator: "=", maxSplits: 1).last ?? "")
                i += 1
            } else {
                rest.append(a)
                i += 1
                continue
            }
            guard let v = value, let choice = ColorChoice(argument: v) else {
                throw CLIError.usage("--color '\(value ?? "")' is not one of: auto, always, never")
            }
            color = choice
        }
        return rest
    }
}

extension CLI {
    /// Findings as text, one per line, errors first.
    static func printFindings(_ findings: [Finding], to stream: FileHandle = .standardError) {
        let fd = stream.fileDescriptor
        let sorted = Finding.Severity.allCases.flatMap { severity in findings.filter { $0.severity == severity } }
        for f in sorted { stream.write(Data((Output.line(f, fd: fd) + "\n").utf8)) }
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(
            Data(
                "trailpack: \(Output.paint("error:", .error, fd: 2)) \(TerminalText.escapedKeepingLines(message))\n"
                    .utf8))
    }

    /// A loud warning, with the fix, for each file of a secret that others can read (libpq does
    /// the same for a too-open password file): the command still runs, since a service may be
    /// mid-upgrade, but says it first, on standard error and so in the service's journal.
    static func warnOfOpenSecrets(_ files: [(path: String?, option: String)]) {
        for (path, option) in files {
            guard let path, let why = SecretFile.exposure(path, option: option) else { continue }
            FileHandle.standardError.write(
                Data(
                    "trailpack: \(Output.paint("warning:", .warning, fd: 2)) \(TerminalText.escapedKeepingLines(why))\n"
                        .utf8))
        }
    }

    /// A closing line that says all is well, in green on a terminal.
    static func outOK(_ text: String) {
        outRaw(Output.paint(TerminalText.escapedKeepingLines(text), .ok, fd: 1))
    }
}
