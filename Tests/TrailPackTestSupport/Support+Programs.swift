import Foundation
import Testing

// Building the fixtures with the builder library is in TrailPackTestFixtures
// (`Support.buildFixture`), so that the verifier's tests can use these helpers without linking the
// builder; here, what needs only the program.
extension Support {
    /// Runs `trailpack command names…` in `directory` (names that need no shell quoting).
    package static func trailpack(_ command: String, names: [String], directory: String) throws -> Output {
        try run(binary, [command] + names, directory: directory)
    }

    /// Builds fixture `name` into `directory` with the trailpack program (for tests that may not
    /// link the builder, such as the verifier's); returns the package path. The program writes the
    /// same bytes as `buildFixture` (the builder library), with the `.sha256` file beside them.
    package static func buildWithProgram(
        _ name: String, into directory: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let output = directory + "/" + name + ".zip"
        let built = try trailpack("build", fixture(name), "-o", output, "--quiet")
        try #require(
            built.status == 0, "trailpack build \(name): exit \(built.status), \(built.stderr)",
            sourceLocation: sourceLocation)
        return output
    }

    /// The SHA-256 of a file, in hex, as GNU sha256sum gives it (needs `PeerTool.sha256sum`); a
    /// sha256sum that fails ends the test.
    package static func sha256sum(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let out = try run("sha256sum", [path])
        try #require(
            out.status == 0, "sha256sum \(path): exit \(out.status), \(out.stderr)", sourceLocation: sourceLocation)
        return String(out.stdout.prefix(64))
    }

    /// Rewrites a JSON file (of a tour folder) with `change` applied to its object, pretty-printed.
    package static func editJSON(_ path: String, _ change: (inout [String: Any]) -> Void) throws {
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        change(&object)
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]).write(
            to: URL(fileURLWithPath: path))
    }
}
