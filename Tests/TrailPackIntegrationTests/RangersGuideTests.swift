import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport
import TrailPackVerifier

/// docs/RANGERS.md is run as written: its files are written, its commands run in order with the
/// exit status it states, and the messages it shows must be what trailpack says.
@Suite("the ranger's guide", .ownThreads)
struct RangersGuideTests {
    static let guide = Support.root + "/docs/RANGERS.md"

    enum Step {
        case file(path: String, text: String)
        case media([String])
        case command(line: String, status: Int32, expected: [String])
    }

    /// The guide's steps, in order: `<!-- file: X -->` before a fenced block writes X, `<!-- media: … -->`
    /// makes the photos, and each `$ ` line of a console block is a command (`# exits N` gives its status).
    static func steps() throws -> [Step] {
        let lines = try String(contentsOfFile: guide, encoding: .utf8).components(separatedBy: "\n")
        var steps: [Step] = []
        var i = 0
        var pendingFile: String?
        while i < lines.count {
            let line = lines[i]
            if line.hasPrefix("<!-- file: ") {
                pendingFile = line.dropFirst("<!-- file: ".count).replacingOccurrences(of: " -->", with: "")
            } else if line.hasPrefix("<!-- media: ") {
                steps.append(
                    .media(
                        line.dropFirst("<!-- media: ".count).replacingOccurrences(of: " -->", with: "").split(
                            separator: " "
                        ).map(String.init)))
            } else if line.hasPrefix("```") && line.count > 3 {
                var body: [String] = []
                i += 1
                while i < lines.count, lines[i] != "```" { body.append(lines[i]); i += 1 }
                if let file = pendingFile {
                    steps.append(.file(path: file, text: body.joined(separator: "\n") + "\n"))
                    pendingFile = nil
                } else if line == "```console" {
                    for (j, b) in body.enumerated() where b.hasPrefix("$ ") {
                        var command = String(b.dropFirst(2))
                        var status: Int32 = 0
                        if let hash = command.range(of: "# exits ") {
                            status = Int32(command[hash.upperBound...].trimmingCharacters(in: .whitespaces)) ?? -1
                            command = String(command[..<hash.lowerBound]).trimmingCharacters(in: .whitespaces)
                        }
                        let output = body[(j + 1)...].prefix { !$0.hasPrefix("$ ") }
                        steps.append(
                            .command(
                                line: command, status: status,
                                expected: output.filter { $0.hasPrefix("error[") || $0.hasPrefix("warning[") }))
                    }
                }
            }
            i += 1
        }
        return steps
    }

    @Test("the worked example runs as written: every command, its exit status and its messages")
    func workedExample() throws {
        let steps = try Self.steps()
        let commands = steps.compactMap { if case .command(let line, _, _) = $0 { line } else { nil } }
        #expect(commands.count >= 8, "the guide lost its commands: \(commands)")
        try Support.withTemporaryDirectory { dir in
            try "a long station password\n".write(toFile: dir + "/.password", atomically: true, encoding: .utf8)
            let bin = URL(fileURLWithPath: Support.binary).deletingLastPathComponent().path
            for step in steps {
                switch step {
                case .file(let path, let text):
                    try text.write(toFile: dir + "/" + path, atomically: true, encoding: .utf8)
                case .media(let files):
                    for f in files {
                        try FileManager.default.createDirectory(
                            atPath: dir + "/" + (f as NSString).deletingLastPathComponent,
                            withIntermediateDirectories: true)
                        let head: [UInt8] =
                            f.lowercased().hasSuffix(".mp3") ? Array("ID3".utf8) + [4, 0] : [0xFF, 0xD8, 0xFF, 0xE0]
                        try Support.write(head + Array(repeating: 0x5A, count: 2000), to: dir + "/" + f)
                    }
                case .command(let line, let status, let expected):
                    let out = try Support.run(
                        "/bin/sh", ["-c", "\(line) < .password"], environment: ["PATH": bin + ":/usr/bin:/bin"],
                        directory: dir)
                    #expect(out.status == status, "'\(line)': exit \(out.status)\n\(out.stderr)")
                    for message in expected {
                        #expect(
                            out.stderr.contains(message), "'\(line)' did not say:\n\(message)\nit said:\n\(out.stderr)")
                    }
                }
            }
            // What the guide promises at the end: a signed package that verifies.
            let package = dir + "/gov.usda.fs.willamette.fish-lake-tour-1.zip"
            #expect(FileManager.default.fileExists(atPath: package + ".minisig"))
            let manifest = try PackageReader(path: package).manifest
            #expect(manifest.waypoints.map(\.name) == ["House Rock", "Tombstone Prairie", "Fish Lake"])
            #expect(
                manifest.waypoints[0].assets.map(\.path) == [
                    "waypoints/house-rock/IMG_0412.JPG", "waypoints/house-rock/thrush.mp3",
                ])
        }
    }

    @Test("the guide's table of common messages names real finding codes, ten of them")
    func commonMessages() throws {
        let text = try String(contentsOfFile: Self.guide, encoding: .utf8)
        // That section only: the guide's later sections (the route's messages) have tables of their own.
        let table =
            (text.components(separatedBy: "## The ten most common messages").last ?? "")
            .components(separatedBy: "\n## ").first ?? ""
        let codes = table.components(separatedBy: "\n").filter { $0.hasPrefix("| `") }
            .compactMap { $0.dropFirst(3).split(separator: "`").first.map(String.init) }
        #expect(codes.count == 10)
        for code in codes { #expect(FindingCode(rawValue: code) != nil, "\(code) is not a finding code") }
    }
}
