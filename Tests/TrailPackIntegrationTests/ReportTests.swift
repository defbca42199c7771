import Foundation
import Testing
import TrailPackTestSupport

/// `--json` on every command, on good and bad input: one shape (manifests/report.schema.json),
/// JSON alone on standard output, and the documented exit codes.
@Suite("one machine interface", .ownThreads)
struct ReportTests {
    struct Run: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: [String]
        var status: Int32
        var ok: Bool
        var testDescription: String { name }
    }

    /// `$D` is a scratch folder holding `good.zip` (a built fixture), `bad.zip` (garbage), `tour/`
    /// (a copy of a fixture), `k.key` (an unencrypted key) and `stops.csv`.
    static let runs: [Run] = [
        Run(name: "validate good", arguments: ["validate", "$D/tour"], status: 0, ok: true),
        Run(
            name: "validate bad manifest", arguments: ["validate", "$R/manifests/examples/invalid/latitude-95.json"],
            status: 1, ok: false),
        Run(name: "validate missing", arguments: ["validate", "/nonexistent/x"], status: 3, ok: false),
        Run(name: "build good", arguments: ["build", "$D/tour", "-o", "$D/out.zip"], status: 0, ok: true),
        Run(name: "build broken tour", arguments: ["build", "$D/broken", "-o", "$D/out2.zip"], status: 1, ok: false),
        Run(name: "build missing", arguments: ["build", "/nonexistent/tour"], status: 3, ok: false),
        Run(
            name: "build into a missing folder", arguments: ["build", "$D/tour", "-o", "/nonexistent/x.zip"], status: 3,
            ok: false),
        Run(name: "verify good", arguments: ["verify", "$D/good.zip"], status: 0, ok: true),
        Run(name: "verify garbage", arguments: ["verify", "$D/bad.zip"], status: 1, ok: false),
        Run(name: "verify missing", arguments: ["verify", "/nonexistent/x.zip"], status: 3, ok: false),
        Run(name: "verify usage", arguments: ["verify", "$D/good.zip", "--sha256", "abc"], status: 2, ok: false),
        Run(name: "inspect good", arguments: ["inspect", "$D/good.zip"], status: 0, ok: true),
        Run(name: "inspect garbage", arguments: ["inspect", "$D/bad.zip"], status: 1, ok: false),
        Run(name: "hash good", arguments: ["hash", "$D/good.zip"], status: 0, ok: true),
        Run(name: "hash missing", arguments: ["hash", "$D/good.zip", "/nonexistent/x"], status: 3, ok: false),
        Run(
            name: "sign good", arguments: ["sign", "$D/good.zip", "-s", "$D/k.key", "-o", "$D/good.zip.minisig"],
            status: 0, ok: true),
        Run(name: "sign garbage", arguments: ["sign", "$D/bad.zip", "-s", "$D/k.key"], status: 1, ok: false),
        Run(
            name: "keygen good", arguments: ["keygen", "-s", "$D/new.key", "-p", "$D/new.pub", "--unencrypted"],
            status: 0, ok: true),
        Run(
            name: "keygen over an existing key",
            arguments: ["keygen", "-s", "$D/k.key", "-p", "$D/k.pub", "--unencrypted"], status: 2, ok: false),
        Run(name: "extract good", arguments: ["extract", "$D/good.zip", "$D/unpacked"], status: 0, ok: true),
        Run(name: "extract garbage", arguments: ["extract", "$D/bad.zip", "$D/unpacked2"], status: 1, ok: false),
        Run(
            name: "init from a spreadsheet", arguments: ["init", "$D/from-csv", "--from-csv", "$D/stops.csv"],
            status: 0, ok: true),
        Run(
            name: "init from a bad spreadsheet", arguments: ["init", "$D/from-bad-csv", "--from-csv", "$D/bad.csv"],
            status: 1, ok: false),
        Run(name: "unknown option", arguments: ["build", "$D/tour", "--jsno"], status: 2, ok: false),
        Run(
            name: "fetch from a server that is not there",
            arguments: ["fetch", "http://127.0.0.1:9", "gov.example.x", "--into", "$D/library"], status: 3, ok: false),
        Run(
            name: "admin user add",
            arguments: ["admin", "--data", "$D/data", "--create", "user", "add", "maria", "--role", "publisher"],
            status: 0, ok: true),
        Run(
            name: "admin user add again",
            arguments: ["admin", "--data", "$D/data", "user", "add", "maria", "--role", "publisher"], status: 2,
            ok: false),
        Run(name: "admin user list", arguments: ["admin", "--data", "$D/data", "user", "list"], status: 0, ok: true),
        Run(
            name: "admin on a missing data folder", arguments: ["admin", "--data", "$D/nowhere", "user", "list"],
            status: 3, ok: false),
        Run(
            name: "fetch without a library folder", arguments: ["fetch", "http://127.0.0.1:9", "gov.example.x"],
            status: 2, ok: false),
    ]

    @Test(
        "every command answers --json with the report shape, JSON only on standard output, and the documented exit code",
        .needs(.python3, .jsonschema))
    func shapes() throws {
        try Support.withTemporaryDirectory { dir in
            try Support.copyTree(Support.fixture("family-hikes"), dir + "/tour")
            try Support.copyTree(Support.fixture("family-hikes"), dir + "/broken")
            try FileManager.default.removeItem(atPath: dir + "/broken/waypoints/01-sahalie-and-koosah-falls/trail.png")
            #expect(
                try Support.trailpack("build", Support.fixture("santiam-wagon-road"), "-o", dir + "/good.zip", "-q")
                    .status == 0)
            try Support.write(Array("PK\u{3}\u{4} not really a zip".utf8), to: dir + "/bad.zip")
            #expect(
                try Support.trailpack("keygen", "-s", dir + "/k.key", "-p", dir + "/k.pub", "--unencrypted").status == 0
            )
            try "name,lat,lon\nHouse Rock,44.39,-122.24\n".write(
                toFile: dir + "/stops.csv", atomically: true, encoding: .utf8)
            try "name,lat,lon\nHouse Rock,144.39,-122.24\n".write(
                toFile: dir + "/bad.csv", atomically: true, encoding: .utf8)

            var files: [String] = []
            for (i, run) in Self.runs.enumerated() {
                let arguments =
                    run.arguments.map {
                        $0.replacingOccurrences(of: "$D", with: dir).replacingOccurrences(of: "$R", with: Support.root)
                    } + ["--json"]
                let out = try Support.run(Support.binary, arguments)
                #expect(out.status == run.status, "\(run.name): exit \(out.status), \(out.stderr)")
                let object = (try? JSONSerialization.jsonObject(with: out.stdoutBytes)) as? [String: Any]
                let report = try #require(object, "\(run.name): standard output is not one JSON object: \(out.stdout)")
                #expect(report["ok"] as? Bool == run.ok, "\(run.name): \(out.stdout)")
                #expect(report["command"] as? String == run.arguments[0], "\(run.name)")
                if !run.ok {
                    let findings = report["findings"] as? [[String: Any]] ?? []
                    #expect(
                        !findings.isEmpty || report["error"] is [String: Any],
                        "\(run.name): a failure says why: \(out.stdout)")
                }
                let file = dir + "/report-\(i).json"
                try out.stdoutBytes.write(to: URL(fileURLWithPath: file))
                files.append(file)
            }
            let check = try Support.run(
                "python3",
                [Support.root + "/scripts/check_schema.py", Support.root + "/manifests/report.schema.json"] + files)
            #expect(check.status == 0, "\(check.stderr)")
            let verdicts = try #require(
                try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: [String: Any]])
            for (i, run) in Self.runs.enumerated() {
                let verdict = verdicts[dir + "/report-\(i).json"]
                #expect(verdict?["valid"] as? Bool == true, "\(run.name): \(verdict?["errors"] ?? "no verdict")")
            }
        }
    }

    @Test("without --json, findings for people go to standard error for validate, build and verify alike")
    func humanTextOnStandardError() throws {
        try Support.withTemporaryDirectory { dir in
            try Support.copyTree(Support.fixture("family-hikes"), dir + "/broken")
            try FileManager.default.removeItem(atPath: dir + "/broken/waypoints/01-sahalie-and-koosah-falls/trail.png")
            try Support.write(Array("PK\u{3}\u{4} not really a zip".utf8), to: dir + "/bad.zip")
            for arguments in [
                ["validate", dir + "/broken"], ["build", dir + "/broken", "-o", dir + "/x.zip"],
                ["verify", dir + "/bad.zip"],
            ] {
                let out = try Support.run(Support.binary, arguments)
                #expect(out.status == 1, "\(arguments)")
                #expect(out.stderr.contains("error["), "\(arguments): \(out.stderr)")
                #expect(
                    !out.stdout.contains("error["), "\(arguments) printed findings on standard output: \(out.stdout)")
            }
        }
    }

    @Test("the schema rejects what is not the shape (a check that can fail)", .needs(.python3, .jsonschema))
    func schemaCanFail() throws {
        try Support.withTemporaryDirectory { dir in
            let bad = [
                #"{"ok": true, "command": "verify", "findings": [], "error": null}"#,  // fields missing
                #"{"ok": true, "command": "verify", "valid": "yes", "file": "x", "size": 1, "sha256": "00", "expectedSHA256": null, "sha256Matches": null, "entries": 1, "id": null, "version": null, "signers": null, "findings": [], "error": null}"#,
                // ok with an error
                #"{"ok": true, "command": "hash", "files": [], "findings": [], "error": {"kind": "io", "message": "x"}}"#,
                #"{"ok": false, "command": "hash", "files": null, "findings": [{"code": "x", "severity": "fatal", "message": "m"}], "error": null}"#,
            ]
            var files: [String] = []
            for (i, text) in bad.enumerated() {
                files.append(dir + "/\(i).json")
                try text.write(toFile: files.last!, atomically: true, encoding: .utf8)
            }
            let check = try Support.run(
                "python3",
                [Support.root + "/scripts/check_schema.py", Support.root + "/manifests/report.schema.json"] + files)
            #expect(check.status == 0)
            let verdicts = try #require(
                try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: [String: Any]])
            for f in files { #expect(verdicts[f]?["valid"] as? Bool == false, "\(f) passed the schema") }
        }
    }
}
