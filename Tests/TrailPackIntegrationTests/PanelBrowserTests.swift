import Foundation
import Testing
import TrailPackArchive
import TrailPackBuilder
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackPanel
import TrailPackTestFixtures
import TrailPackTestSupport
import TrailPackVerifier

/// The panel in a real browser: `trailpack serve` with a temporary data folder, driven by scripts/panel-browser.py
/// in headless Chromium (Debian's chromium, chromium-driver and python3-selenium, installed by the Makefile).
@Suite("panel: in headless Chromium", .ownThreads, .serialized)
struct PanelBrowserTests {
    /// Runs each `trailpack` command (users, sites, grants and passwords made as an operator makes them).
    static func trailpack(_ commands: [[String]]) throws {
        for arguments in commands {
            let result = try Support.trailpack(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
    }

    /// A tour folder zipped by Python's zipfile as a ranger would send it (under `santiam-wagon-road/`),
    /// without the file `leavingOut` (a path in the folder), if given.
    static func zipTour(_ folder: String, to output: String, leavingOut: String = "") throws -> Support.Output {
        try Support.run(
            "python3",
            [
                "-c",
                """
                import os, sys, zipfile
                src, out, skip = sys.argv[1], sys.argv[2], sys.argv[3]
                with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                    for folder, _, files in os.walk(src):
                        for f in files:
                            p = os.path.join(folder, f)
                            if os.path.relpath(p, src) != skip:
                                z.write(p, os.path.join("santiam-wagon-road", os.path.relpath(p, src)))
                """, folder, output, leavingOut,
            ])
    }

    static let python = "/usr/bin/python3"
    /// Debian's Leaflet, which the panel serves from its default --web-assets (with Bootstrap).
    static let webAssets = PeerTool(
        file: PanelConfiguration.defaultWebAssets + "/leaflet/leaflet.js",
        name: "Leaflet in \(PanelConfiguration.defaultWebAssets)",
        debianPackage: "libjs-leaflet")

    @Test(
        "a scripted ranger makes a tour in Chromium (map clicks, uploads, a finding fixed, keyboard reorder, build, review) with no axe-core violation or console error; the package verifies, and the folder zip builds byte-identical with the CLI",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, webAssets, .unzip, .sha256sum))
    func walkthrough() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            try Self.trailpack([
                ["admin", "user", "add", "ranger", "--role", "publisher", "--data", data, "--create"],
                ["admin", "site", "add", "willamette-sweet-home", "Sweet Home Ranger District", "--data", data],
                ["admin", "grant", "ranger", "willamette-sweet-home", "--data", data],
                ["admin", "user", "add", "rita", "--role", "reviewer", "--data", data],
            ])
            try "correct horse battery staple\n".write(toFile: dir + "/password", atomically: true, encoding: .utf8)
            #expect(
                try Support.trailpack([
                    "admin", "user", "password", "ranger", "--password-file", dir + "/password", "--data", data,
                ]).status == 0)
            try "a reviewer's long password\n".write(
                toFile: dir + "/reviewer-password", atomically: true, encoding: .utf8)
            #expect(
                try Support.trailpack([
                    "admin", "user", "password", "rita", "--password-file", dir + "/reviewer-password", "--data", data,
                ]).status == 0)
            let server = try ServeProcess.launch(["--data", data, "--approvals", "1", "--no-malware-scan"])
            defer { server.stop() }
            let shots = Support.root + "/out/screenshots/walkthrough"
            try? FileManager.default.removeItem(atPath: shots)
            let santiam = Support.fixture("santiam-wagon-road")
            let result = try Support.run(
                Self.python,
                [
                    Support.root + "/scripts/panel-walkthrough.py", server.base, shots, "ranger",
                    "correct horse battery staple",
                    santiam + "/waypoints/01-sweet-home/view.png", santiam + "/waypoints/04-house-rock/birdsong.wav",
                    dir + "/folder.zip",
                    "rita", "a reviewer's long password",
                ])
            #expect(result.status == 0, "panel-walkthrough.py exited \(result.status): \(result.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String] ?? [:]
            let sha = try #require(summary["sha256"], "no package was built: \(result.stdout)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }.count >= 14)
            // The package the panel built and stored verifies, as a phone would check it.
            let blob = data + "/blobs/" + sha.prefix(2) + "/" + sha + ".zip"
            let verify = try Support.trailpack(["verify", blob])
            #expect(verify.status == 0, "\(verify.stdout)")
            // The frame the ranger drew on the map is the package's map frame.
            let manifest = try Support.run("unzip", ["-p", blob, "manifest.json"])
            #expect(manifest.status == 0, "\(manifest.stderr)")
            let bounds = try #require(
                (try JSONSerialization.jsonObject(with: Data(manifest.stdout.utf8)) as? [String: Any])?["bounds"]
                    as? [String: [String: Double]])
            let drawn = (summary["frame"] ?? "").split(separator: ",").compactMap { Double($0) }
            #expect(
                drawn.count == 4
                    && [
                        bounds["southwest"]?["latitude"], bounds["southwest"]?["longitude"],
                        bounds["northeast"]?["latitude"], bounds["northeast"]?["longitude"],
                    ]
                    .enumerated().allSatisfy { abs(($0.element ?? .nan) - drawn[$0.offset]) < 1e-6 },
                "manifest bounds \(bounds), drawn \(drawn)")
            // The folder zip, unzipped by Info-ZIP and built by the CLI, gives the same bytes.
            let unzip = try Support.run("unzip", ["-q", dir + "/folder.zip", "-d", dir + "/folder"])
            #expect(unzip.status == 0, "\(unzip.stderr)")
            let tour = try #require(try FileManager.default.contentsOfDirectory(atPath: dir + "/folder").first)
            let build = try Support.trailpack(["build", dir + "/folder/" + tour, "-o", dir + "/cli.zip", "--quiet"])
            #expect(build.status == 0, "\(build.stderr)")
            #expect(
                try ServerFixtures.sha(dir + "/cli.zip") == sha,
                "the CLI's build of the downloaded folder differs from the panel's")
        }
    }
}

extension PanelBrowserTests {
    @Test(
        "review in Chromium: a new version of a released tour (a stop moved, a photo replaced, a stop added); reviewer one sees exactly those changes, plays the recording and approves with a signature; reviewer two denies with a reason; the publisher fixes it, builds the same version again (proposed by the page) and asks again; reviewer one sees what changed since the sent-back build; both approve signed; released; the phones' download verifies with the served signatures at threshold 2",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, webAssets, .python3, .curl, .sha256sum))
    func reviewWalkthrough() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            let id = "gov.usda.fs.willamette.santiam-wagon-road"
            try FileManager.default.createDirectory(atPath: dir + "/reviewers", withIntermediateDirectories: true)
            var commands: [[String]] = [
                ["admin", "user", "add", "ranger", "--role", "publisher", "--data", data, "--create"],
                ["admin", "site", "add", "willamette-sweet-home", "Sweet Home Ranger District", "--data", data],
                ["admin", "grant", "ranger", "willamette-sweet-home", "--data", data],
            ]
            for reviewer in ["rita", "sam"] {
                #expect(
                    try Support.trailpack([
                        "keygen", "-s", dir + "/\(reviewer).key", "-p", dir + "/reviewers/\(reviewer).pub",
                        "--unencrypted",
                    ]).status == 0)
                commands.append([
                    "admin", "user", "add", reviewer, "--role", "reviewer", "--public-key",
                    dir + "/reviewers/\(reviewer).pub", "--data", data,
                ])
            }
            for arguments in commands {
                let result = try Support.trailpack(arguments)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
            }
            for user in ["ranger", "rita", "sam"] {
                try "\(user)'s long password\n".write(
                    toFile: dir + "/\(user).password", atomically: true, encoding: .utf8)
                #expect(
                    try Support.trailpack([
                        "admin", "user", "password", user, "--password-file", dir + "/\(user).password", "--data", data,
                    ]).status == 0)
            }
            var tokens: [String: String] = [:]
            for user in ["ranger", "rita", "sam"] {
                let issued = try Support.trailpack(["admin", "token", "issue", user, "--data", data, "--json"])
                #expect(issued.status == 0, "\(issued.stderr)")
                let result = try JSON.parse(issued.stdout)["results"]?.array?.first
                tokens[user] = try #require(result?["token"]?.string, "no token in \(issued.stdout)")
            }
            let server = try ServeProcess.launch(["--data", data, "--approvals", "2", "--no-malware-scan"])
            defer { server.stop() }
            // 1.0.0 released through the API: uploaded, two approvals, pushed.
            let package = try Support.buildFixture("santiam-wagon-road", into: dir)
            var curl = try ServeProcess.curl([
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(tokens["ranger"]!)",
                "--data-binary", "@" + package, server.base + "/v1/admin/packages",
            ])
            #expect(curl.stdout == "201", "\(curl.stdout)")
            for (user, action) in [("ranger", "start"), ("rita", "approve"), ("sam", "approve"), ("ranger", "push")] {
                curl = try ServeProcess.curl([
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H",
                    "Authorization: Bearer \(tokens[user]!)",
                    server.base + "/v1/admin/packages/\(id)/versions/1.0.0/\(action)",
                ])
                #expect(curl.stdout == "200", "\(user) \(action): \(curl.stdout)")
            }
            // The released tour's folder, zipped as a ranger would send it.
            let zipped = try Self.zipTour(Support.fixture("santiam-wagon-road"), to: dir + "/tour.zip")
            #expect(zipped.status == 0, "\(zipped.stderr)")
            let shots = Support.root + "/out/screenshots/review"
            try? FileManager.default.removeItem(atPath: shots)
            let result = try Support.run(
                Self.python,
                [
                    Support.root + "/scripts/panel-review.py", server.base, shots, Support.binary, dir + "/tour.zip",
                    Support.fixture("santiam-wagon-road") + "/waypoints/02-cascadia/view.png", dir + "/work",
                    "ranger:ranger's long password", "rita:rita's long password:\(dir)/rita.key",
                    "sam:sam's long password:\(dir)/sam.key",
                ])
            #expect(result.status == 0, "panel-review.py exited \(result.status): \(result.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String] ?? [:]
            let sha = try #require(summary["sha256"], "no version was built: \(result.stdout)")
            // The phone's view: the list offers 1.1.0; its download verifies with the served signatures, two distinct reviewers.
            curl = try ServeProcess.curl(["-s", server.base + "/v1/packages/\(id)"])
            let offered = try JSON.parse(curl.stdout)["versions"]?.array ?? []
            #expect(
                offered.contains { $0["version"] == .string("1.1.0") && $0["sha256"] == .string(sha) }, "\(curl.stdout)"
            )
            curl = try ServeProcess.curl(["-s", "-o", dir + "/phone.zip", server.base + "/v1/blobs/\(sha).zip"])
            #expect(try ServerFixtures.sha(dir + "/phone.zip") == sha)
            curl = try ServeProcess.curl(["-s", server.base + "/v1/packages/\(id)/versions/1.1.0/signatures"])
            let served = try #require(
                (try JSONSerialization.jsonObject(with: Data(curl.stdout.utf8)) as? [String: Any])?["signatures"]
                    as? [[String: String]])
            #expect(served.count == 2)
            var signatureArguments: [String] = []
            for (n, entry) in served.enumerated() {
                try (entry["minisig"] ?? "").write(
                    toFile: dir + "/phone.zip.\(n).minisig", atomically: true, encoding: .utf8)
                signatureArguments += ["--signature", dir + "/phone.zip.\(n).minisig"]
            }
            let verify = try Support.trailpack(
                ["verify", dir + "/phone.zip", "--trusted-key", dir + "/reviewers", "--threshold", "2"]
                    + signatureArguments)
            #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }.count >= 6)
        }
    }
}

extension PanelBrowserTests {
    @Test(
        "package content never runs in the panel's origin: a reviewer in Chromium opens an asset that is an HTML page (page.png, declared text/html) whose script would read the CSRF token and approve; the page comes as a download with the sandboxing policy, the script as plain text, and the version stays unapproved",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, webAssets))
    func assetCannotApprove() async throws {
        try await Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            try Self.trailpack([
                ["admin", "user", "add", "ranger", "--role", "publisher", "--data", data, "--create"],
                ["admin", "site", "add", "willamette-sweet-home", "Sweet Home Ranger District", "--data", data],
                ["admin", "grant", "ranger", "willamette-sweet-home", "--data", data],
                ["admin", "user", "add", "rita", "--role", "reviewer", "--data", data],
            ])
            try "rita's long password\n".write(toFile: dir + "/password", atomically: true, encoding: .utf8)
            #expect(
                try Support.trailpack([
                    "admin", "user", "password", "rita", "--password-file", dir + "/password", "--data", data,
                ]).status == 0)
            // The hostile version: the sample tour plus two assets an upload would no longer pass
            // (verify refuses both); it is put in the catalog directly, as a package verified by an
            // older trailpack would be, so that only the serving is on trial.
            let id = "gov.usda.fs.willamette.santiam-wagon-road", version = "1.0.0"
            let review = "/packages/\(id)/versions/\(version)"
            var forge = try ZipForge.from(package: Support.read(Support.buildFixture("santiam-wagon-road", into: dir)))
            var manifest = try #require(
                try JSONSerialization.jsonObject(with: Data(forge.entries[0].data)) as? [String: Any])
            var waypoints = try #require(manifest["waypoints"] as? [[String: Any]])
            let slug = try #require(waypoints.first?["slug"] as? String)
            func url(_ path: String) -> String {
                review + "/asset?path=" + path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            }
            let pagePath = "waypoints/\(slug)/page.png", scriptPath = "waypoints/\(slug)/approve.js"
            let page = Array(
                "<!DOCTYPE html><html><head><title>page</title><script src=\"\(url(scriptPath))\"></script></head><body>hello</body></html>\n"
                    .utf8)
            let script = Array(
                """
                document.title = "ran";
                fetch("\(review)").then(function (r) { return r.text(); }).then(function (t) {
                  var token = t.match(/name="_csrf" value="([^"]+)"/)[1];
                  return fetch("\(review)/approve", {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: "_csrf=" + encodeURIComponent(token)});
                }).then(function (r) { document.title = "approved " + r.status; });

                """.utf8)
            var assets = waypoints[0]["assets"] as? [[String: Any]] ?? []
            for (path, kind, type, bytes) in [
                (pagePath, "image", "text/html", page), (scriptPath, "other", "text/javascript", script),
            ] {
                assets.append([
                    "path": path, "kind": kind, "mediaType": type, "size": bytes.count,
                    "sha256": SHA256.hash(bytes).hex, "alt": "a page",
                ])
                forge.entries.append(ZipForge.Entry(path, bytes))
            }
            assets[assets.count - 1]["alt"] = nil
            waypoints[0]["assets"] = assets
            manifest["waypoints"] = waypoints
            let manifestBytes = Array(try JSONSerialization.data(withJSONObject: manifest))
            forge.entries[0].data = manifestBytes
            let bytes = forge.bytes()
            let refused = try Verifier.verify(source: MemorySource(bytes))
            #expect(refused.findings.filter { $0.code == .assetTypeMismatch }.count == 2, "\(refused.findings)")
            let digest = SHA256.hash(bytes)
            let blob = data + "/blobs/\(digest.hex.prefix(2))/\(digest.hex).zip"
            try FileManager.default.createDirectory(
                atPath: (blob as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Support.write(bytes, to: blob)
            do {
                let catalog = try SQLiteCatalog(path: data + "/catalog.sqlite")
                let parsed = try #require(ManifestReader.read(manifestBytes).manifest)
                _ = try await catalog.register(
                    manifest: parsed, manifestJSON: String(decoding: manifestBytes, as: UTF8.self), sha256: digest.hex,
                    size: Int64(bytes.count), actor: "ranger", status: .draft)
                let ranger = try #require(try await catalog.user(name: "ranger"))
                #expect(
                    try await catalog.apply(
                        .start, package: id, version: version, by: ranger, required: 1, signature: nil) != .notFound)
                #expect(try await catalog.record(package: id, version: version)?.summary.status == .pending)
            }
            let server = try ServeProcess.launch(["--data", data, "--approvals", "1", "--no-malware-scan"])
            let run: Support.Output
            do {
                defer { server.stop() }
                run = try Support.run(
                    Self.python,
                    [
                        Support.root + "/scripts/panel-asset-attack.py", server.base,
                        Support.root + "/out/screenshots/asset-attack", "rita", "rita's long password", url(pagePath),
                        url(scriptPath),
                    ])
            }
            #expect(run.status == 0, "panel-asset-attack.py exited \(run.status): \(run.stderr)")
            let result = try JSON.parse(run.stdout)
            #expect(
                result["title"]?.string?.hasPrefix("approved") == false, "the page's script approved: \(run.stdout)")
            for (name, disposition) in [("page", "attachment"), ("script", nil)] {
                let headers = result[name]
                #expect(headers?["status"]?.int == 200, "\(name): \(run.stdout)")
                #expect(headers?["Content-Security-Policy"]?.string == "default-src 'none'; sandbox", "\(name)")
                #expect(headers?["X-Content-Type-Options"]?.string == "nosniff", "\(name)")
                #expect(headers?["Content-Disposition"]?.string == disposition, "\(name): \(run.stdout)")
            }
            #expect(result["page"]?["Content-Type"]?.string == "application/octet-stream")
            #expect(result["script"]?["Content-Type"]?.string == "text/plain; charset=utf-8")
            let after = try await SQLiteCatalog(path: data + "/catalog.sqlite").record(package: id, version: version)
            #expect(
                after?.summary.status == .pending && after?.approvals.isEmpty == true, "\(String(describing: after))")
        }
    }
}

extension PanelBrowserTests {
    /// The languages in plain words with a meter, language tabs, a Spanish description edited on its tab
    /// and saved under "es", the side-by-side page, a malformed tag refused, French added, a recording
    /// uploaded as French; the reviewer sees the languages and the Spanish changes; axe-core stays clean.
    @Test(
        "a tour in two languages in Chromium: tabs, a Spanish edit saved under \"es\", meters, review by language",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, webAssets, .curl))
    func languagesWalkthrough() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            let id = "gov.usda.fs.willamette.santiam-wagon-road"
            try Self.trailpack([
                ["admin", "user", "add", "ranger", "--role", "publisher", "--data", data, "--create"],
                ["admin", "site", "add", "willamette-sweet-home", "Sweet Home Ranger District", "--data", data],
                ["admin", "grant", "ranger", "willamette-sweet-home", "--data", data],
                ["admin", "user", "add", "rita", "--role", "reviewer", "--data", data],
            ])
            var tokens: [String: String] = [:]
            for user in ["ranger", "rita"] {
                try "\(user)'s long password\n".write(
                    toFile: dir + "/\(user).password", atomically: true, encoding: .utf8)
                #expect(
                    try Support.trailpack([
                        "admin", "user", "password", user, "--password-file", dir + "/\(user).password", "--data", data,
                    ]).status == 0)
                let issued = try Support.trailpack(["admin", "token", "issue", user, "--data", data, "--json"])
                tokens[user] = try JSON.parse(issued.stdout)["results"]?.array?.first?["token"]?.string
            }
            let server = try ServeProcess.launch(["--data", data, "--approvals", "1", "--no-malware-scan"])
            defer { server.stop() }
            // 1.0.0, the bilingual sample, released through the API: what 1.1.0 is compared with.
            let package = try Support.buildFixture("santiam-wagon-road", into: dir)
            var curl = try ServeProcess.curl([
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(tokens["ranger"] ?? "")",
                "--data-binary", "@" + package, server.base + "/v1/admin/packages",
            ])
            #expect(curl.stdout == "201", "\(curl.stdout)")
            for (user, action) in [("ranger", "start"), ("rita", "approve"), ("ranger", "push")] {
                curl = try ServeProcess.curl([
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H",
                    "Authorization: Bearer \(tokens[user] ?? "")",
                    server.base + "/v1/admin/packages/\(id)/versions/1.0.0/\(action)",
                ])
                #expect(curl.stdout == "200", "\(user) \(action): \(curl.stdout)")
            }
            let zipped = try Support.run(
                "python3",
                [
                    "-c",
                    """
                    import os, sys, zipfile
                    src, out = sys.argv[1], sys.argv[2]
                    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                        for folder, _, files in os.walk(src):
                            for f in files:
                                p = os.path.join(folder, f)
                                z.write(p, os.path.join("santiam-wagon-road", os.path.relpath(p, src)))
                    """, Support.fixture("santiam-wagon-road"), dir + "/tour.zip",
                ])
            #expect(zipped.status == 0, "\(zipped.stderr)")
            let shots = Support.root + "/out/screenshots/languages"
            try? FileManager.default.removeItem(atPath: shots)
            let result = try Support.run(
                Self.python,
                [
                    Support.root + "/scripts/panel-languages.py", server.base, shots, dir + "/tour.zip",
                    Support.fixture("santiam-wagon-road") + "/waypoints/04-house-rock/birdsong.wav",
                    "ranger:ranger's long password", "rita:rita's long password",
                ])
            #expect(result.status == 0, "panel-languages.py exited \(result.status): \(result.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String] ?? [:]
            let draft = try #require(summary["draft"], "no draft was made: \(result.stdout)")
            // The Spanish description typed on stop 2's Spanish tab is in its waypoint.json under "es".
            let stop = try JSON.parse(
                Data(try Support.read(data + draft + "/waypoints/02-cascadia/waypoint.json")))
            #expect(stop["description"]?["es"]?.string == summary["spanish"], "\(stop)")
            #expect(stop["description"]?["en"]?.string?.hasPrefix("Soda springs") == true)
            let tour = try JSON.parse(Data(try Support.read(data + draft + "/tour.json")))
            #expect(tour["languages"] == .array([.string("en"), .string("es"), .string("fr")]))
            let third = try JSON.parse(
                Data(try Support.read(data + draft + "/waypoints/03-mountain-house/waypoint.json")))
            let recording = third["assets"]?.array?.first { $0["file"] == .string("historia.wav") }
            #expect(recording?["language"] == .string("fr"), "\(third)")
            #expect(recording?["transcript"]?.string?.hasPrefix("Des chants") == true, "its French text, plain")
            // The version built from it verifies.
            let sha = try #require(summary["sha256"], "no version was built: \(result.stdout)")
            let verify = try Support.trailpack(["verify", data + "/blobs/" + sha.prefix(2) + "/" + sha + ".zip"])
            #expect(verify.status == 0, "\(verify.stdout)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }.count >= 9)
        }
    }
}

extension PanelBrowserTests {
    /// A sheet zipped with a media folder becomes a tour (a missing photo named by row first); text
    /// typed before choosing a file, autosaved text and text typed after the session ended all survive;
    /// the sign-in page keeps a form sent after the session ended; axe-core stays clean.
    @Test(
        "an admin adds a site and a ranger in Chromium; the ranger's tour from a sheet zipped with media/; typed text survives an upload, a reload and a session that ended (autosave and Save button); the map by keyboard",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, webAssets))
    func typedTextWalkthrough() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            // Only the first administrator is made on the command line; the site and the ranger in the browser.
            #expect(
                try Support.trailpack(["admin", "user", "add", "ada", "--role", "admin", "--data", data, "--create"])
                    .status == 0)
            try "ada's long password\n".write(toFile: dir + "/ada.password", atomically: true, encoding: .utf8)
            #expect(
                try Support.trailpack([
                    "admin", "user", "password", "ada", "--password-file", dir + "/ada.password", "--data", data,
                ]).status == 0)
            let server = try ServeProcess.launch(["--data", data, "--no-malware-scan"])
            defer { server.stop() }
            let shots = Support.root + "/out/screenshots/typed-text"
            try? FileManager.default.removeItem(atPath: shots)
            let result = try Support.run(
                Self.python,
                [
                    Support.root + "/scripts/panel-typed-text.py", server.base, shots,
                    Support.fixture("santiam-wagon-road") + "/waypoints/02-cascadia/view.png",
                    "ada:ada's long password", "ranger:ranger's long password",
                ])
            #expect(result.status == 0, "panel-typed-text.py exited \(result.status): \(result.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String] ?? [:]
            let draft = try #require(summary["draft"], "no draft was made: \(result.stdout)")
            let stop = try JSON.parse(
                Data(try Support.read(data + draft + "/waypoints/01-trailhead/waypoint.json")))
            #expect(stop["description"]?.string == summary["description"], "\(stop)")
            let files = try FileManager.default.contentsOfDirectory(atPath: data + draft + "/waypoints/01-trailhead")
            #expect(Set(files).isSuperset(of: ["trailhead.png", "view.png"]), "\(files)")
        }
    }
}

extension PanelBrowserTests {
    /// The trail itself (issue #49): the Santiam recording imported onto the tour in Chromium.
    @Test(
        "the route in Chromium: a ranger adds the Santiam recording to the tour and sees the line, its length in km and mi, its climb, the profile and each stop along it; a photo and a NaN track are refused beside the form; the route is removed (asked first) and added again without JavaScript; the built version's review page draws it; axe-core clean at 1280 and 390 px; the package holds the route as the draft had it",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, webAssets, .python3))
    func route() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            try Self.trailpack([
                ["admin", "user", "add", "ranger", "--role", "publisher", "--data", data, "--create"],
                ["admin", "site", "add", "willamette-sweet-home", "Sweet Home Ranger District", "--data", data],
                ["admin", "grant", "ranger", "willamette-sweet-home", "--data", data],
            ])
            try "ranger's long password\n".write(toFile: dir + "/password", atomically: true, encoding: .utf8)
            #expect(
                try Support.trailpack([
                    "admin", "user", "password", "ranger", "--password-file", dir + "/password", "--data", data,
                ]).status == 0)
            // The sample tour's folder, zipped as a ranger would send it, without its route.
            let zipped = try Self.zipTour(
                Support.fixture("santiam-wagon-road"), to: dir + "/tour.zip", leavingOut: "route.gpx")
            #expect(zipped.status == 0, "\(zipped.stderr)")
            let server = try ServeProcess.launch(["--data", data, "--approvals", "1", "--no-malware-scan"])
            defer { server.stop() }
            let shots = Support.root + "/out/screenshots/route"
            try? FileManager.default.removeItem(atPath: shots)
            let santiam = Support.fixture("santiam-wagon-road")
            let id = "gov.usda.fs.willamette.santiam-wagon-road"
            let result = try Support.run(
                Self.python,
                [
                    Support.root + "/scripts/panel-route.py", server.base, shots, "ranger", "ranger's long password",
                    dir + "/tour.zip", santiam + "/route.gpx", Support.fixture("gpx/tracks/nan.gpx"),
                    santiam + "/waypoints/01-sweet-home/view.png", id,
                ])
            #expect(result.status == 0, "panel-route.py exited \(result.status): \(result.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String] ?? [:]
            let draft = try #require(summary["draft"], "no draft was made: \(result.stdout)")
            let sha = try #require(summary["sha256"], "no version was built: \(result.stdout)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }.count >= 10)
            // The package holds the route the draft holds, and verifies.
            let blob = data + "/blobs/" + sha.prefix(2) + "/" + sha + ".zip"
            let verify = try Support.trailpack(["verify", blob])
            #expect(verify.status == 0, "\(verify.stdout)")
            let packaged = try #require(try PackageReader(path: blob).route())
            let drawn = try #require(TourRoute.load(folder: data + draft).source)
            #expect(packaged.lines == drawn.lines)
            #expect(
                summary["length"]
                    == String(
                        format: "%.1f km (%.1f mi)", packaged.summary.lengthMetres / 1000,
                        packaged.summary.lengthMetres / 1609.344))
        }
    }
}

extension PanelBrowserTests {
    /// Nothing is lost by a slip (#52): removing a language asks first (the page's dialog, or the server's
    /// confirmation page without JavaScript) and keeps its texts, which "Add Spanish back" restores; removing
    /// a stop without JavaScript asks first; a photo without alt text is "Fix" and blocks Request review
    /// (disabled, with the reason) but not the build, whose page (…/built/VERSION) reloads without building
    /// again; the old build address is the panel's 404 page with a way back; a token an administrator issues
    /// is shown once. axe-core stays clean in both browsers.
    @Test(
        "nothing is lost by a slip, in Chromium: a language removed (asked in a dialog, or by a page without JavaScript) keeps its texts and comes back with them; a stop removed without JavaScript is asked first; a photo without alt text blocks Request review, not the build, and the built page reloads without building; the old build address is a 404 page with a way back; an issued token is shown once",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, webAssets))
    func keepsWork() async throws {
        try await Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            try Self.trailpack([
                ["admin", "user", "add", "ranger", "--role", "publisher", "--data", data, "--create"],
                ["admin", "site", "add", "willamette-sweet-home", "Sweet Home Ranger District", "--data", data],
                ["admin", "grant", "ranger", "willamette-sweet-home", "--data", data],
                ["admin", "user", "add", "ada", "--role", "admin", "--data", data],
            ])
            for user in ["ranger", "ada"] {
                try "\(user)'s long password\n".write(
                    toFile: dir + "/\(user).password", atomically: true, encoding: .utf8)
                #expect(
                    try Support.trailpack([
                        "admin", "user", "password", user, "--password-file", dir + "/\(user).password", "--data", data,
                    ]).status == 0)
            }
            let shots = Support.root + "/out/screenshots/keeps-work"
            try? FileManager.default.removeItem(atPath: shots)
            let server = try ServeProcess.launch(["--data", data, "--approvals", "1", "--no-malware-scan"])
            let result: Support.Output
            do {
                defer { server.stop() }
                result = try Support.run(
                    Self.python,
                    [
                        Support.root + "/scripts/panel-keeps-work.py", server.base, shots,
                        Support.fixture("santiam-wagon-road") + "/waypoints/02-cascadia/view.png",
                        "ranger:ranger's long password", "ada:ada's long password",
                    ])
            }
            #expect(result.status == 0, "panel-keeps-work.py exited \(result.status): \(result.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String] ?? [:]
            let draft = try #require(summary["draft"], "no draft was made: \(result.stdout)")
            // Spanish, removed twice and added back twice, is the tour's with the texts typed before it was
            // removed; the kept texts are forgotten once they are back in the draft.
            let tour = try JSON.parse(Data(try Support.read(data + draft + "/tour.json")))
            #expect(tour["languages"] == .array([.string("en"), .string("es")]), "\(tour)")
            #expect(tour["description"]?["es"]?.string == summary["spanish"], "\(tour)")
            let folder = data + draft
            let kept =
                (folder as NSString).deletingLastPathComponent + "/." + (folder as NSString).lastPathComponent
                + ".kept-texts.json"
            #expect(!FileManager.default.fileExists(atPath: kept), "the kept texts stay after Spanish came back")
            // Stop 3 was removed (its folder kept aside); stop 2 has its Spanish description; the photo its alt text.
            let stops = try FileManager.default.contentsOfDirectory(atPath: folder + "/waypoints").sorted()
            #expect(stops == ["01-trailhead", "02-fish-lake"], "\(stops)")
            let aside = try FileManager.default.contentsOfDirectory(
                atPath: data + "/drafts-removed" + String(draft.dropFirst("/drafts".count)))
            #expect(aside.contains { $0.hasSuffix("-03-house-rock") }, "\(aside)")
            let fishLake = try JSON.parse(Data(try Support.read(folder + "/waypoints/02-fish-lake/waypoint.json")))
            #expect(fishLake["description"]?["es"]?.string == summary["spanish_stop"], "\(fishLake)")
            let trailhead = try JSON.parse(Data(try Support.read(folder + "/waypoints/01-trailhead/waypoint.json")))
            let photo = trailhead["assets"]?.array?.first { $0["file"] == .string("trailhead.png") }
            #expect(photo?["alt"]?.string == summary["alt"], "\(trailhead)")
            // 1.0.0 was built once and stays a draft (review blocked); 1.0.1 verifies and waits for review.
            let id = try #require(summary["tour"], "no tour id: \(result.stdout)")
            let sha = try #require(summary["sha256"], "1.0.1 was not built: \(result.stdout)")
            let verify = try Support.trailpack(["verify", data + "/blobs/" + sha.prefix(2) + "/" + sha + ".zip"])
            #expect(verify.status == 0, "\(verify.stdout)")
            let catalog = try SQLiteCatalog(path: data + "/catalog.sqlite")
            let built = try await catalog.record(package: id, version: "1.0.0")
            #expect(built?.summary.status == .draft, "\(String(describing: built))")
            #expect(built?.summary.sha256 == summary["sha256_1.0.0"])
            #expect(try await catalog.record(package: id, version: "1.0.1")?.summary.status == .pending)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }.count >= 19)
        }
    }
}

extension PanelBrowserTests {
    /// #52 item 5: the review page's "Preview as a visitor" of a version that has no offline map of
    /// its own draws the site's region map under it (the app says visitors will not get it).
    @Test(
        "the visitor preview of a version without its own offline map draws the site's region map under it, saying visitors will not get it; axe-core stays clean",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, webAssets))
    func previewRegionMap() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            let admin = ["--data", data, "--create"]
            for command in [
                ["admin", "site", "add", "willamette-sweet-home", "Sweet Home Ranger District"],
                [
                    "admin", "site", "map", "willamette-sweet-home",
                    Support.fixture("santiam-wagon-road") + "/map/santiam-wagon-road.pmtiles",
                ],
                ["admin", "user", "add", "rita", "--role", "reviewer"],
            ] {
                let run = try Support.trailpack(command + admin)
                #expect(run.status == 0, "\(command): \(run.stderr)")
            }
            try "rita's long password\n".write(toFile: dir + "/rita.password", atomically: true, encoding: .utf8)
            #expect(
                try Support.trailpack([
                    "admin", "user", "password", "rita", "--password-file", dir + "/rita.password", "--data", data,
                ]).status == 0)
            // The sample tour without its offline map.
            try FileManager.default.copyItem(atPath: Support.fixture("santiam-wagon-road"), toPath: dir + "/tour")
            try FileManager.default.removeItem(atPath: dir + "/tour/map")  // ours: the copy just made
            let built = try Support.trailpack(["build", dir + "/tour", "-o", dir + "/tour.zip", "-q"])
            #expect(built.status == 0, "\(built.stderr)")
            try String(repeating: "7f3a", count: 12).write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try ServeProcess.launch([
                "--data", data, "--admin-token-file", dir + "/token", "--approvals", "1", "--no-malware-scan",
            ])
            defer { server.stop() }
            let shots = Support.root + "/out/screenshots/preview-base"
            try? FileManager.default.removeItem(atPath: shots)
            let result = try Support.run(
                Self.python,
                [
                    Support.root + "/scripts/panel-preview-base.py", server.base, shots, dir + "/tour.zip",
                    dir + "/token", "rita:rita's long password",
                ])
            #expect(result.status == 0, "panel-preview-base.py exited \(result.status): \(result.stderr)")
            let summary = try JSON.parse(result.stdout)
            #expect(summary["id"]?.string == "gov.usda.fs.willamette.santiam-wagon-road", "\(result.stdout)")
            #expect((summary["tiles"]?.int ?? 0) >= 1, "region map tiles drawn: \(result.stdout)")
        }
    }
}

extension PanelBrowserTests {
    /// #52 item 4: the same GPS file imported again is asked about; a second draft when asked; a
    /// draft renamed, duplicated, deleted (asked first, with and without JavaScript) and brought back.
    @Test(
        "drafts kept tidy in Chromium: the same file imported again is asked about, a second draft only when asked; rename keeps the id; duplicate; delete asks first (dialog, or the server's page without JavaScript) and 'Bring back' restores it; axe-core stays clean",
        .needs(.chromium, .chromedriver, .debianPython3, .selenium, webAssets))
    func draftsKeptTidy() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            try "ranger's long password\n".write(toFile: dir + "/ranger.password", atomically: true, encoding: .utf8)
            for command in [
                ["admin", "site", "add", "willamette-sweet-home", "Sweet Home Ranger District"],
                ["admin", "user", "add", "ranger", "--role", "publisher"],
                ["admin", "user", "password", "ranger", "--password-file", dir + "/ranger.password"],
                ["admin", "grant", "ranger", "willamette-sweet-home"],
            ] {
                let run = try Support.trailpack(command + ["--data", data, "--create"])
                #expect(run.status == 0, "\(command): \(run.stderr)")
            }
            let server = try ServeProcess.launch(["--data", data, "--no-malware-scan"])
            defer { server.stop() }
            let shots = Support.root + "/out/screenshots/drafts-tidy"
            try? FileManager.default.removeItem(atPath: shots)
            let result = try Support.run(
                Self.python,
                [
                    Support.root + "/scripts/panel-drafts-tidy.py", server.base, shots,
                    Support.fixture("gpx") + "/garmin-cmt-desc.gpx", "ranger:ranger's long password",
                ])
            #expect(result.status == 0, "panel-drafts-tidy.py exited \(result.status): \(result.stderr)")
            let summary = try JSON.parse(result.stdout)
            // On disk: the first draft, the renamed second one (brought back), the deleted copy kept aside.
            let drafts = data + "/drafts/willamette-sweet-home"
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: drafts).filter { !$0.hasPrefix(".") })
            #expect(names == ["garmin-cmt-desc", "wagon-road-second-walk"], "\(names) \(result.stdout)")
            #expect(summary["copy"]?.string == "/drafts/willamette-sweet-home/wagon-road-second-walk-copy")
            let aside = try FileManager.default.contentsOfDirectory(
                atPath: data + "/drafts-removed/willamette-sweet-home/wagon-road-second-walk-copy")
            #expect(aside.count == 1, "the deleted copy is kept aside: \(aside)")
        }
    }
}
