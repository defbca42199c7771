import Foundation
import Testing
import TrailPackTestFixtures
import TrailPackTestSupport

@Suite("command line", .ownThreads)
struct CLITests {
    @Test("hash prints exactly what sha256sum prints, escapes included", .needs(.sha256sum))
    func hashMatchesSha256sum() throws {
        try Support.withTemporaryDirectory { dir in
            let names = ["plain.txt", "with space.txt", "back\\slash.txt", "new\nline.txt", "empty.bin"]
            for (i, name) in names.enumerated() {
                try Data(i == 4 ? [] : Array(repeating: UInt8(i), count: 1000 * i + 1)).write(
                    to: URL(fileURLWithPath: dir + "/" + name))
            }
            let ours = try Support.trailpack("hash", names: names, directory: dir)
            let theirs = try Support.run("sha256sum", names, directory: dir)
            #expect(ours.status == 0)
            #expect(theirs.status == 0, "\(theirs.stderr)")
            #expect(ours.stdout == theirs.stdout)
            // A missing file: the others are still printed, and the exit code says I/O error.
            let mixed = try Support.trailpack("hash", names: ["plain.txt", "nope.txt"], directory: dir)
            #expect(mixed.status == 3)
            let plain = try Support.run("sha256sum", ["plain.txt"], directory: dir)
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(mixed.stdout == plain.stdout)
            #expect(mixed.stderr.contains("nope.txt"))
        }
    }

    @Test("validate exits 0 on every fixture folder and 1 with the expected codes on bad manifests")
    func validateExitCodes() throws {
        for name in Support.fixtureNames {
            #expect(try Support.trailpack("validate", Support.fixture(name)).status == 0)
        }
        let bad = try Support.trailpack(
            "validate", "--json", Support.root + "/manifests/examples/invalid/latitude-95.json")
        #expect(bad.status == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bad.stdout.utf8)) as? [String: Any])
        #expect(json["valid"] as? Bool == false)
        let findings = try #require(json["findings"] as? [[String: Any]])
        #expect(findings.first?["code"] as? String == "coordinate.latitude")
        #expect(findings.first?["path"] as? String == "waypoints[1].coordinate.latitude")
    }

    @Test(
        "garbage gets a clear message and exit 1, never a crash",
        arguments: ["binary", "empty", "huge", "deep", "long-number", "zip"])
    func garbage(kind: String) throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/manifest.json"
            var expectedWord = ""
            switch kind {
            case "binary":
                try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7919) }).write(to: URL(fileURLWithPath: path))
                expectedWord = "json."
            case "empty":
                try Data().write(to: URL(fileURLWithPath: path))
                expectedWord = "empty"
            case "huge":
                var text = "{\"description\": \""
                text += String(repeating: "trail ", count: 50 << 20 / 6)
                text += "\"}"
                try text.write(toFile: path, atomically: false, encoding: .utf8)
                expectedWord = "json.too-large"
            case "deep":
                try (String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).write(
                    toFile: path, atomically: false, encoding: .utf8)
                expectedWord = "json.too-deep"
            case "long-number":
                try ("{\"formatVersion\": " + String(repeating: "9", count: 5_000) + "}").write(
                    toFile: path, atomically: false, encoding: .utf8)
                expectedWord = "json.number"
            default:
                try Data([0x50, 0x4B, 0x03, 0x04, 0, 0]).write(to: URL(fileURLWithPath: path))
                expectedWord = "trailpack verify"
            }
            let out = try Support.trailpack("validate", path)
            #expect(out.status == (kind == "zip" ? 2 : 1), "\(kind): \(out.status) \(out.stderr)")
            #expect((out.stdout + out.stderr).contains(expectedWord), "\(kind): \(out.stdout) \(out.stderr)")
            #expect(!out.stderr.contains("Fatal error") && !out.stderr.contains("Stack dump"))
            // The verifier, fed the same garbage as a package, rejects it too.
            let v = try Support.trailpack("verify", path)
            #expect(v.status == 1, "\(kind): verify exit \(v.status)")
        }
    }

    @Test(
        "the wrong kind of input says what to give instead: a spreadsheet or GPS file to validate, a folder to sign; an unsigned package's verify says the signatures were not checked"
    )
    func wrongKindOfInput() throws {
        try Support.withTemporaryDirectory { dir in
            try Support.write(Array("name,latitude,longitude\nA,44.1,-122.1\n".utf8), to: dir + "/stops.csv")
            let sheet = try Support.trailpack("validate", dir + "/stops.csv")
            #expect(sheet.status == 2, "\(sheet.stdout)")
            #expect(
                sheet.stderr.contains("is a spreadsheet, not a tour")
                    && sheet.stderr.contains("init TOUR-FOLDER --from-csv"), "\(sheet.stderr)")
            #expect(!sheet.stderr.contains("json"), "a sheet is not read as a manifest: \(sheet.stderr)")
            let folder = Support.fixture("family-hikes")
            let sign = try Support.trailpack("sign", folder, "-s", dir + "/none.key")
            #expect(
                sign.status == 2 && sign.stderr.contains("is a folder; sign the package built from it"),
                "\(sign.stderr)")
            let package = try Support.buildFixture("family-hikes", into: dir)
            let verify = try Support.trailpack("verify", package)
            #expect(
                verify.status == 0
                    && verify.stdout.contains(
                        "signed    not checked: give the reviewers' public keys with --trusted-key"),
                "\(verify.stdout)")
        }
    }

    @Test("usage errors exit 2, I/O errors exit 3, --help shows an example on every command")
    func usageAndIO() throws {
        #expect(try Support.trailpack("verify").status == 2)
        #expect(try Support.trailpack("frobnicate").status == 2)
        #expect(try Support.trailpack("verify", "x.zip", "--sha256", "abc").status == 2)
        #expect(try Support.trailpack("verify", "/nonexistent/x.zip").status == 3)
        #expect(try Support.trailpack("validate", "/nonexistent/manifest.json").status == 3)
        #expect(
            try Support.trailpack("build", "/nonexistent/tour").status == 3,
            "a missing file is an I/O error for every command")
        #expect(try Support.trailpack("build", Support.fixture("family-hikes"), "-o", "/nonexistent/x.zip").status == 3)
        let version = try Support.trailpack("--version")
        #expect(version.status == 0 && version.stdout.hasPrefix("trailpack "))
        // The visitor app is in the program: its count of files is the folder's.
        let appFiles = try FileManager.default.subpathsOfDirectory(
            atPath: Support.root + "/Sources/TrailPackVisitor/app"
        )
        .filter { path in
            var folder: ObjCBool = false
            FileManager.default.fileExists(
                atPath: Support.root + "/Sources/TrailPackVisitor/app/" + path, isDirectory: &folder)
            return !folder.boolValue && !path.split(separator: "/").contains { $0.hasPrefix(".") }
        }
        #expect(
            version.stdout.contains("the visitor app served at /visit/ (\(appFiles.count) files"), "\(version.stdout)")
        for command in ["init", "validate", "build", "verify", "inspect", "cat", "extract", "hash"] {
            let help = try Support.trailpack(command, "--help")
            #expect(help.status == 0)
            #expect(help.stdout.contains("trailpack \(command) "), "\(command) --help has no example")
            #expect(help.stdout.contains("Exit codes"), "\(command) --help does not list exit codes")
        }
    }

    @Test(
        "extract is durable before it is visible: every file flushed, then the folders, then the rename into place, then its parent (seen with strace)",
        .needs(.strace))
    func extractDurability() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Support.buildFixture("family-hikes", into: dir)
            let traced = try Support.run(
                "/usr/bin/strace",
                [
                    "-f", "-e", "trace=fsync,fdatasync,rename", "-o", dir + "/trace", Support.binary, "extract",
                    package, dir + "/out",
                ])
            #expect(traced.status == 0, "\(traced.stderr)")
            let calls = try String(contentsOfFile: dir + "/trace", encoding: .utf8).split(separator: "\n").map {
                // strace pads the PID column ("6915  rename(…)"): the call is what follows it.
                ($0.split(separator: " ", maxSplits: 1).last.map(String.init) ?? "").trimmingCharacters(
                    in: .whitespaces)
            }
            let files = try FileManager.default.subpathsOfDirectory(atPath: dir + "/out")
                .filter {
                    var isDir: ObjCBool = false;
                    FileManager.default.fileExists(atPath: dir + "/out/" + $0, isDirectory: &isDir);
                    return !isDir.boolValue
                }
            let rename = try #require(
                calls.firstIndex { $0.hasPrefix("rename(") && $0.contains("\"" + dir + "/out\"") }, "\(calls)")
            #expect(
                calls[..<rename].filter { $0.hasPrefix("fdatasync(") }.count == files.count,
                "one flush per file before the rename")
            #expect(
                calls[..<rename].filter { $0.hasPrefix("fsync(") }.count >= 2,
                "the folders are flushed before the rename")
            #expect(calls[(rename + 1)...].contains { $0.hasPrefix("fsync(") }, "the parent folder is flushed after it")
        }
    }

    @Test("hash - reads standard input (a pipe of 3 MB, several chunks) and agrees with sha256sum", .needs(.sha256sum))
    func hashStandardInput() throws {
        let ours = try Support.run(
            "/bin/sh", ["-c", "head -c 3000000 /dev/zero | tr '\\0' 'x' | '\(Support.binary)' hash -"])
        let theirs = try Support.run("/bin/sh", ["-c", "head -c 3000000 /dev/zero | tr '\\0' 'x' | sha256sum"])
        #expect(theirs.status == 0, "\(theirs.stderr)")
        #expect(
            ours.status == 0 && ours.stdout == theirs.stdout && ours.stdout.hasSuffix("  -\n"),
            "\(ours.stdout) \(theirs.stdout)")
    }

    @Test("verify --sha256-file and --json report the whole-file hash and its comparison", .needs(.sha256sum))
    func verifyJSON() throws {
        try Support.withTemporaryDirectory { dir in
            let path = try Support.buildFixture("family-hikes", into: dir)
            let sums = try Support.run(
                "/bin/sh", ["-c", "sha256sum family-hikes.zip > family-hikes.zip.sha256"], directory: dir)
            #expect(sums.status == 0, "\(sums.stderr)")
            let ok = try Support.trailpack("verify", path, "--sha256-file", path + ".sha256", "--json")
            #expect(ok.status == 0, "\(ok.stdout)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any])
            #expect(json["sha256Matches"] as? Bool == true)
            let wrong = try Support.trailpack("verify", path, "--sha256", String(repeating: "A", count: 64))
            #expect(wrong.status == 1)
            #expect(wrong.stderr.contains("package.sha256-mismatch"), "findings for people go to standard error")
            // A name sha256sum escapes (a backslash): `trailpack hash` writes the escaped line, verify reads it back,
            // and so do GNU's own lines, plain and --tag.
            let odd = dir + "/family\\hikes.zip"
            try FileManager.default.copyItem(atPath: path, toPath: odd)
            let hashed = try Support.trailpack("hash", odd)
            #expect(hashed.status == 0 && hashed.stdout.hasPrefix("\\"), "\(hashed.status) \(hashed.stdout)")
            try hashed.stdout.write(toFile: dir + "/SUMS", atomically: true, encoding: .utf8)
            #expect(try Support.trailpack("verify", odd, "--sha256-file", dir + "/SUMS").status == 0)
            for flags in ["", "--tag"] {
                let theirs = try Support.run(
                    "/bin/sh", ["-c", "sha256sum \(flags) 'family\\hikes.zip' > GNU"], directory: dir)
                #expect(theirs.status == 0, "sha256sum \(flags): \(theirs.stderr)")
                let gnu = try Support.trailpack("verify", odd, "--sha256-file", dir + "/GNU")
                #expect(gnu.status == 0, "sha256sum \(flags): \(gnu.stderr)")
            }
        }
    }

    @Test("inspect --geojson writes a FeatureCollection: the bounds polygon, then the waypoints with their properties")
    func geojson() throws {
        try Support.withTemporaryDirectory { dir in
            let path = try Support.buildFixture("colorado-fourteeners", into: dir)
            let out = try Support.trailpack("inspect", path, "--geojson")
            #expect(out.status == 0)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            #expect(json["type"] as? String == "FeatureCollection")
            let features = try #require(json["features"] as? [[String: Any]])
            #expect(features.count == 37)
            #expect((features[0]["geometry"] as? [String: Any])?["type"] as? String == "Polygon")
            let elbert = try #require(features[1]["properties"] as? [String: Any])
            #expect(elbert["name"] as? String == "Mount Elbert")
            #expect(elbert["elevationFeet"] as? Int == 14440)
            let point = try #require((features[1]["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            #expect(point == [-106.4454, 39.1178])
            let text = try Support.trailpack("inspect", path)
            #expect(text.status == 0 && text.stdout.contains("1. Mount Elbert"), "\(text.status) \(text.stdout)")
        }
    }
}
