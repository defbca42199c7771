import Foundation
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// The visitor app (`/visit/`) as visitors get it: served by `trailpack serve`, driven in headless
/// Chromium by scripts/visitor-walkthrough.py; its JavaScript modules are tested by Node
/// (Tests/VisitorAppJS, run by `make test`).
@Suite("visitor app: served, and taken in headless Chromium", .ownThreads, .serialized)
struct VisitorAppTests {
    static let santiam = "gov.usda.fs.willamette.santiam-wagon-road"
    static let family = "gov.usda.fs.willamette.family-hikes"

    /// The Santiam tour with a video and its captions at stop 2 (a WebM recorded by Chromium).
    static func santiamWithVideo(into dir: String) throws -> String {
        let tour = dir + "/santiam-wagon-road"
        let copy = try Support.run("cp", ["-R", Support.fixture("santiam-wagon-road"), tour])
        #expect(copy.status == 0, "\(copy.stderr)")
        let stop = tour + "/waypoints/02-cascadia"
        let video = try Support.run(
            "/usr/bin/python3", [Support.root + "/scripts/make-test-video.py", stop + "/walk.webm"])
        try #require(video.status == 0, "make-test-video.py: \(video.stderr)")
        try """
        WEBVTT

        00:00.000 --> 00:01.500
        The trail marker crosses the meadow at Cascadia.

        00:01.500 --> 00:03.000
        It climbs toward the river crossing.

        """.write(toFile: stop + "/walk.vtt", atomically: true, encoding: .utf8)
        let path = stop + "/waypoint.json"
        var waypoint = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var assets = waypoint["assets"] as? [Any] ?? []
        assets.append([
            "file": "walk.webm", "title": "The trail at Cascadia", "captions": "walk.vtt",
            "transcript": "A trail marker crosses the meadow at Cascadia and climbs toward the river crossing.",
        ])
        assets.append("walk.vtt")
        waypoint["assets"] = assets
        try JSONSerialization.data(withJSONObject: waypoint, options: [.prettyPrinted, .sortedKeys])
            .write(to: URL(fileURLWithPath: path))
        let built = try Support.trailpack(["build", tour, "-o", dir + "/santiam.zip"])
        try #require(built.status == 0, "build: \(built.stdout) \(built.stderr)")
        return dir + "/santiam.zip"
    }

    /// Uploads `package`, starts the review, has ken and lee sign and approve, and releases it.
    static func release(_ s: WorkflowTests.Setup, _ package: String, id: String, version: String) throws {
        let path = "/v1/admin/packages/\(id)/versions/\(version)"
        var r = try s.curl("POST", "/v1/admin/packages", as: "maria", file: package)
        try #require(r.0 == 201, "upload: \(r)")
        r = try s.curl("POST", path + "/start", as: "maria")
        try #require(r.0 == 200, "start: \(r)")
        for reviewer in ["ken", "lee"] {
            let signature = s.dir + "/\(reviewer)-\(id).minisig"
            #expect(
                try Support.trailpack("sign", package, "-s", s.dir + "/\(reviewer).key", "-o", signature).status == 0)
            let body = String(
                decoding: JSONWriter.bytes(
                    .object(["signature": .string(try String(contentsOfFile: signature, encoding: .utf8))]),
                    pretty: false), as: UTF8.self)
            r = try s.curl("POST", path + "/approve", as: reviewer, body: body)
            try #require(r.0 == 200, "approve by \(reviewer): \(r)")
        }
        r = try s.curl("POST", path + "/push", as: "maria")
        try #require(r.0 == 200, "release: \(r)")
    }

    @Test(
        "/visit/ is served with a CSP allowing no inline script and no other origin, every file the service worker keeps exists, config.json names the trusted keys, fewer keys than approvals are refused, --no-visitor-app turns it off",
        .needs(.curl))
    func served() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try WorkflowTests.setUp(dir, extra: ["--no-malware-scan", "--visitor-trusted-key", dir + "/keys"])
            defer { s.server.stop() }
            let head = try Support.run("curl", ["-s", "-D", "-", "-o", "/dev/null", s.base + "/visit/"])
            let csp = head.stdout.split(separator: "\r\n").first {
                $0.lowercased().hasPrefix("content-security-policy:")
            }
            let policy = String(try #require(csp, "no CSP: \(head.stdout)"))
            #expect(
                policy.contains("script-src 'self' 'wasm-unsafe-eval';") && !policy.contains("unsafe-inline")
                    && !policy.contains("'unsafe-eval'"), "\(policy)")
            #expect(policy.contains("connect-src 'self';") && policy.contains("frame-ancestors 'self'"), "\(policy)")
            #expect(try s.curl("GET", "/visit", as: nil).0 == 301)
            // Every file the service worker caches for offline use is served (a missing one would break install).
            let worker = try s.curl("GET", "/visit/sw.js", as: nil)
            #expect(worker.0 == 200)
            let list = try #require(
                worker.1.range(of: #"const SHELL = \[[^\]]*\]"#, options: .regularExpression).map { worker.1[$0] })
            let files = list.split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            #expect(files.count >= 20, "\(files)")
            for file in files {
                let code = try s.curl("GET", "/visit/" + (file == "./" ? "" : file), as: nil).0
                #expect(code == 200, "/visit/\(file): \(code)")
            }
            // …and every JavaScript module the app has is in that list.
            let modules = try FileManager.default.contentsOfDirectory(
                atPath: Support.root + "/Sources/TrailPackVisitor/app/js")
            for module in modules where module.hasSuffix(".js") || module.hasSuffix(".wasm") {
                #expect(files.contains(Substring("js/" + module)), "sw.js does not keep js/\(module)")
            }
            let config = try JSON.parse(try s.curl("GET", "/visit/config.json", as: nil).1)
            #expect(config["threshold"] == .number(JSONNumber(Int64(2))))
            #expect(config["trustedKeys"]?.array?.count == 2)
            // Names that are not files of the app are 404, never a file of the server.
            for path in ["/visit/../catalog.sqlite", "/visit/js/../../Package.swift", "/visit/%2e%2e/etc/passwd"] {
                #expect(try s.curl("GET", path, as: nil).0 == 404, "\(path)")
            }
        }
        // Fewer trusted keys than --approvals asks for would make every tour uninstallable: refused at start.
        try Support.withTemporaryDirectory { dir in
            #expect(
                try Support.trailpack("keygen", "-s", dir + "/r.key", "-p", dir + "/r.pub", "--unencrypted").status == 0
            )
            let refused = try Support.trailpack([
                "serve", "--data", dir + "/data", "--no-malware-scan", "--approvals", "2", "--visitor-trusted-key",
                dir + "/r.pub", "--port", "0",
            ])
            #expect(refused.status == 2, "\(refused.stdout) \(refused.stderr)")
            #expect(refused.stderr.contains("--approvals asks for 2"), "\(refused.stderr)")
        }
        try Support.withTemporaryDirectory { dir in
            let server = try ServeProcess.launch(["--data", dir + "/data", "--no-malware-scan", "--no-visitor-app"])
            defer { server.stop() }
            let out = try Support.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", server.base + "/visit/"])
            #expect(out.stdout != "200", "the app is served with --no-visitor-app")
        }
    }

    @Test(
        "a visitor in headless Chromium (390x844): finds the tour, an altered package is refused and nothing kept (the server told), installs with two reviewers' signatures checked (the server told), takes the tour offline with each stop announced in order, plays a recording and a captioned video, deletes it; axe clean on every view",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, .curl))
    func walkthrough() throws {
        try Support.withTemporaryDirectory { dir in
            let santiam = try Self.santiamWithVideo(into: dir)
            let family = try Support.buildFixture("family-hikes", into: dir)
            let serve = ["--no-malware-scan", "--visitor-trusted-key", dir + "/keys"]
            let first = try WorkflowTests.setUp(dir, extra: serve)
            try Self.release(first, santiam, id: Self.santiam, version: "1.0.0")
            try Self.release(first, family, id: Self.family, version: "3")
            first.server.stop()
            // ken signs in to the control panel too (to preview a version as a visitor).
            try "ken's panel password\n".write(toFile: dir + "/ken.password", atomically: true, encoding: .utf8)
            let password = try Support.trailpack([
                "admin", "user", "password", "ken", "--password-file", dir + "/ken.password", "--data", dir + "/data",
            ])
            try #require(password.status == 0, "\(password.stderr)")
            let server = try ServeProcess.launch(["--data", dir + "/data", "--approvals", "2"] + serve)
            defer { server.stop() }
            let s = WorkflowTests.Setup(dir: dir, server: server, tokens: first.tokens)
            // The family tour's blob is changed on the server after its release (same size, one byte).
            let familySHA = try Support.run("sha256sum", [family]).stdout.prefix(64)
            let blob = dir + "/data/blobs/\(familySHA.prefix(2))/\(familySHA).zip"
            let handle = try #require(FileHandle(forUpdatingAtPath: blob), "no blob at \(blob)")
            try handle.seek(toOffset: 200)
            let byte = try #require(try handle.read(upToCount: 1)).first ?? 0
            try handle.seek(toOffset: 200)
            try handle.write(contentsOf: [byte ^ 0xff])
            try handle.close()
            let manifestText = try Support.run("unzip", ["-p", santiam, "manifest.json"]).stdout
            let manifest = try #require(
                try JSONSerialization.jsonObject(with: Data(manifestText.utf8)) as? [String: Any])
            let waypoints = try #require(manifest["waypoints"] as? [[String: Any]])
            let stops: [[String: Any]] = waypoints.map { ($0["coordinate"] as? [String: Any]) ?? [:] }
            let shots = Support.root + "/out/screenshots/visitor"
            try? FileManager.default.removeItem(atPath: shots)
            let sha256 = String(try Support.run("sha256sum", [santiam]).stdout.prefix(64))
            var config: [String: Any] = ["base": s.base, "shots": shots]
            config["serverPid"] = Int(s.server.process.processIdentifier)
            config["siteName"] = "Sweet Home Ranger District"
            config["tour"] = Self.santiam
            config["tourName"] = "Santiam Wagon Road"
            config["tourTitle"] = "Santiam Wagon Road"
            config["spanishName"] = "Camino de Carretas de Santiam"
            config["altered"] = Self.family
            config["stops"] = stops
            config["audioStop"] = 4
            config["videoStop"] = 2
            config["sha256"] = sha256
            config["reviewer"] = "ken"
            config["reviewerPassword"] = "ken's panel password"
            config["version"] = "1.0.0"
            try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir + "/walk.json"))
            let result = try Support.run(
                "/usr/bin/python3", [Support.root + "/scripts/visitor-walkthrough.py", dir + "/walk.json"])
            #expect(result.status == 0, "visitor-walkthrough.py: \(result.stderr)\n\(result.stdout)")
            let summary = try JSON.parse(result.stdout.split(separator: "\n").last.map(String.init) ?? "{}")
            #expect(summary["announced"]?.array?.count == stops.count, "\(result.stdout)")
            // At stop 3 the video of stop 2 was still playing: the stop was offered, not forced open.
            #expect(summary["offeredWhilePlaying"]?.array == [.number(JSONNumber(Int64(3)))], "\(result.stdout)")
            #expect((summary["views"]?.array?.count ?? 0) >= 12, "\(result.stdout)")
            #expect(summary["spanishPreview"] == .bool(true), "the bilingual tour's preview in Spanish")
            // The install told the server without waiting for its answer (keepalive): it was counted.
            // (The walk stopped the server to go offline: it is started again on the same data.)
            let after = try ServeProcess.launch(["--data", dir + "/data", "--approvals", "2"] + serve)
            defer { after.stop() }
            let (code, body) = try WorkflowTests.Setup(dir: dir, server: after, tokens: first.tokens)
                .curl("GET", "/v1/admin/confirmations", as: "root")
            #expect(code == 200, "\(body)")
            let counts = try JSON.parse(body)["confirmations"]?.array
            let santiamCounts = counts?.first { $0["id"]?.string == Self.santiam && $0["version"]?.string == "1.0.0" }
            #expect(santiamCounts?["match"] == .number(JSONNumber(Int64(1))), "\(body)")
            let familyCounts = counts?.first { $0["id"]?.string == Self.family }
            #expect(familyCounts?["mismatch"] == .number(JSONNumber(Int64(1))), "\(body)")
            print("visitor walkthrough: \(result.stdout)")
        }
    }

    /// The fixture `name`, copied into `dir` with a 12 MB recording added to its stop `stop`, built.
    static func withRecording(_ name: String, stop: String, in dir: String) throws -> String {
        let tour = dir + "/" + name
        #expect(try Support.run("cp", ["-R", Support.fixture(name), tour]).status == 0)
        try addRecording(to: tour, stop: stop)
        let package = dir + "/" + name + ".zip"
        let built = try Support.trailpack(["build", tour, "-o", package])
        try #require(built.status == 0, "\(built.stdout)")
        return package
    }

    /// Adds a recording of `bytes` (`talk.mp3`, an ID3 header and noise; 12 MB unless said) to the
    /// stop `stop` of the tour folder `tour`.
    static func addRecording(to tour: String, stop: String, bytes: Int = 12_000_000) throws {
        var recording = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]
        var state: UInt64 = 29
        recording.reserveCapacity(bytes)
        while recording.count < bytes {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            recording.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        try Data(recording).write(to: URL(fileURLWithPath: tour + "/waypoints/" + stop + "/talk.mp3"))
        let path = tour + "/waypoints/" + stop + "/waypoint.json"
        var waypoint = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        waypoint["assets"] =
            (waypoint["assets"] as? [Any] ?? []) + [
                ["file": "talk.mp3", "title": "The ranger's talk", "transcript": "A talk about the trail."]
            ]
        try JSONSerialization.data(withJSONObject: waypoint).write(to: URL(fileURLWithPath: path))
    }

    @Test(
        "downloads through a slow link in Chromium: a reload mid-download continues from the stored bytes (a ranged request), a pause stays paused across a reload, Continue finishes and installs, Cancel deletes what arrived; axe clean",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, .curl))
    func downloads() throws {
        try Support.withTemporaryDirectory { dir in
            // Both tours with a 12 MB recording at stop 1, so that a 1.5 MB/s link takes 8 s: the second
            // one's download lasts long enough to be cancelled however busy the machine is.
            let santiam = try Self.withRecording("santiam-wagon-road", stop: "01-sweet-home", in: dir)
            let family = try Self.withRecording("family-hikes", stop: "01-sahalie-and-koosah-falls", in: dir)
            let s = try WorkflowTests.setUp(dir, extra: ["--no-malware-scan", "--visitor-trusted-key", dir + "/keys"])
            defer { s.server.stop() }
            try Self.release(s, santiam, id: Self.santiam, version: "1.0.0")
            try Self.release(s, family, id: Self.family, version: "3")
            let proxy = try ClientTests.Proxy(
                upstream: s.server.port, log: dir + "/proxy.log",
                arguments: ["--rate", "1500000", "--hold-file", dir + "/hold"])
            defer { proxy.stop() }
            let config: [String: Any] = [
                "base": proxy.base, "shots": Support.root + "/out/screenshots/visitor-downloads", "tour": Self.santiam,
                "other": Self.family, "hold": dir + "/hold",
            ]
            try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir + "/downloads.json"))
            let result = try Support.run(
                "/usr/bin/python3", [Support.root + "/scripts/visitor-downloads.py", dir + "/downloads.json"])
            #expect(
                result.status == 0, "visitor-downloads.py: \(result.stderr)\n\(result.stdout)\n\(proxy.state)")
            // The reload continued with a range from where the stored bytes ended, never from 0 again.
            let sha = String(try Support.run("sha256sum", [santiam]).stdout.prefix(64))
            let ranged = proxy.requests.filter { $0.contains("/v1/blobs/\(sha).zip") && $0.contains("bytes=") }
            #expect(
                ranged.contains { !$0.contains("bytes=0-") }, "no resumed range request: \(proxy.requests.suffix(20))")
            print("visitor downloads: \(result.stdout)")
        }
    }
}
