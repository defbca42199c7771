import ArgumentParser
import Foundation
import TrailPackCore

/// Did-you-mean for a misspelt subcommand or option, before the argument parser's own errors
/// (which report `build --hlep` as a missing argument).
enum Suggestions {
    /// Parses the process's arguments; on a usage error, says what was probably meant.
    static func parseAsRoot(_ given: [String] = Array(CommandLine.arguments.dropFirst())) throws -> any ParsableCommand
    {
        Report.prepare(given)
        let arguments = try Output.takeColorOption(given)
        do {
            return try TrailPack.parseAsRoot(arguments)
        } catch {
            // --help, --version and --generate-completion-script come as errors that end in success.
            if TrailPack.exitCode(for: error) == .success { throw error }
            if let hint = hint(arguments, error: error) {
                throw CLIError.usage(hint.contains("\nSee '") ? hint : hint + "\nSee 'trailpack --help'.")
            }
            throw error
        }
    }

    static func hint(_ arguments: [String], error: Error) -> String? {
        // The command path: subcommand names as far as they go, past options and their values
        // (`admin --data D usr add` is 'usr' misspelt under admin).
        var command: any ParsableCommand.Type = TrailPack.self
        var path = ["trailpack"]
        var previousWasOption = false
        var rest = arguments[...]
        while let word = rest.first {
            rest = rest.dropFirst()
            if word == "--" { break }
            if word.hasPrefix("-") {
                previousWasOption = word.hasPrefix("--") && !word.contains("=")
                continue
            }
            let children = command.configuration.subcommands
            if children.isEmpty { break }
            let names = children.map { $0._commandName }
            if let child = children.first(where: { $0._commandName == word }) {
                command = child
                path.append(word)
                previousWasOption = false
                continue
            }
            let near = Spelling.closest(to: word, among: names)
            if previousWasOption && near == nil {
                previousWasOption = false  // the value of the option before it
                continue
            }
            let see = "\nSee '\(path.joined(separator: " ")) --help'."
            if let near { return "unknown command '\(word)'; did you mean '\(near)'?" + see }
            return "unknown command '\(word)'; the commands are: \(names.joined(separator: ", "))" + see
        }
        // An option the command does not have. The parser reports a missing argument before an
        // unknown option; ask it again with the arguments filled in, so that its own spelling
        // suggestion ("Did you mean '--help'?") comes through.
        let message = TrailPack.message(for: error)
        var unknown: String? = message.hasPrefix("Unknown option") ? message : nil
        if unknown == nil, message.hasPrefix("Missing expected argument") {
            var padded = arguments
            for _ in 0..<3 where unknown == nil {
                padded.append("x")
                do {
                    _ = try TrailPack.parseAsRoot(padded)
                    return nil
                } catch {
                    let retry = TrailPack.message(for: error)
                    if retry.hasPrefix("Unknown option") {
                        unknown = retry
                    } else if !retry.hasPrefix("Missing expected argument") {
                        return nil
                    }
                }
            }
        }
        guard let unknown else { return nil }
        if unknown.contains("Did you mean") {
            return unknown.lowercasedFirst.replacingOccurrences(of: ". Did you mean", with: "; did you mean")
        }
        // The parser leaves out --help and --version: offer them too.
        guard let open = unknown.firstIndex(of: "'"),
            let close = unknown[unknown.index(after: open)...].firstIndex(of: "'")
        else { return nil }
        let word = String(unknown[unknown.index(after: open)..<close])
        let help = TrailPack.helpMessage(for: command, columns: 1000)
        var options: [String] = []
        for token in help.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" || $0 == "[" || $0 == "]" })
        where token.hasPrefix("--") {
            let name = String(token.prefix { $0 != "=" && $0 != "<" })
            if !options.contains(name) { options.append(name) }
        }
        if let near = Spelling.closest(to: word, among: options) {
            return "unknown option '\(word)'; did you mean '\(near)'?"
        }
        return "unknown option '\(word)'; see 'trailpack \(command._commandName) --help' for the options"
    }
}

extension String {
    fileprivate var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}
